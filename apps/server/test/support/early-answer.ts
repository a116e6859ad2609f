import { type IncomingHttpHeaders, request } from "node:http";

/** What the server answered to a request whose body it was not sent in full. */
export interface EarlyAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * POSTs the head and `part` of a body, then waits for the answer without ever sending the rest
 * (chunked when `declaredLength` is undefined): it resolves only for a server that answers without
 * the whole body, so a server that waits for it fails the test by its timeout.
 */
export function answerBeforeBodyEnds(
  url: string,
  headers: Record<string, string>,
  part: string,
  declaredLength?: number,
): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: "POST",
      headers:
        declaredLength === undefined ? headers : { ...headers, "content-length": String(declaredLength) },
    });
    outgoing.on("error", reject);
    outgoing.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => {
        outgoing.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    outgoing.write(part);
  });
}
