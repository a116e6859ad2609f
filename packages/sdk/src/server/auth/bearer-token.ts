import { headerText } from "../../protocol/http-headers.js";
import type { RequestHead } from "../transport/request-head.js";

export type BearerCredentials =
  | { kind: "absent" }
  | { kind: "token"; scheme: "bearer" | "dpop"; token: string }
  | { kind: "malformed"; problem: string };

/** RFC 6750 §2.1 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The access token of a request, from the Authorization header only, with its scheme: `Bearer`, or
 * `DPoP` (RFC 9449 §7.1) for a token bound to a key, which bearerAuth then checks against the proof. A token in the query string is
 * refused outright (MCP forbids it: URLs end up in logs and Referer headers), even next to a valid header.
 */
export function bearerCredentialsOf(req: RequestHead): BearerCredentials {
  const query = new URL(req.url ?? "/", "http://request.invalid").searchParams;
  if (query.has("access_token")) {
    return {
      kind: "malformed",
      problem: "Access tokens are not accepted in the query string; send them in the Authorization header",
    };
  }
  const header = headerText(req.headers, "authorization");
  if (header === undefined) return { kind: "absent" };
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim());
  const scheme = match?.[1]?.toLowerCase();
  // Another scheme (Basic...) carries no access token; the challenge asks for one.
  if (scheme !== "bearer" && scheme !== "dpop") return { kind: "absent" };
  const token = match?.[2]?.trim() ?? "";
  if (!B64TOKEN.test(token)) {
    const form = scheme === "dpop" ? "DPoP" : "Bearer";
    return { kind: "malformed", problem: `The Authorization header is not of the form '${form} <token>'` };
  }
  return { kind: "token", scheme, token };
}
