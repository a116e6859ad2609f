// The demo's load balancer: one public URL in front of the instances, which the demo points at one
// instance or the other between steps, so a flow visibly moves from instance A to instance B.
import { createServer, request as forward, type Server } from "node:http";
import { isCarrierMethod } from "@roundtrip/sdk/protocol";

/** The header an instance names itself in (INSTANCE_NAME): the balancer only reads it. */
export const INSTANCE_HEADER = "roundtrip-instance";

/** A POST as it went through the balancer: sealed state and all, so it can be sent again byte for byte. */
export interface ForwardedPost {
  headers: Record<string, string>;
  body: string;
}

export interface Router {
  /** The public origin, e.g. http://127.0.0.1:PORT. */
  readonly origin: string;
  /** Sends every request from now on to the named instance. */
  use(name: string): void;
  readonly current: string;
  /** The latest POST whose JSON-RPC id was `id`, if it went through recently. */
  post(id: unknown): ForwardedPost | undefined;
  /**
   * The instances that answered the rounds (tools/call, prompts/get, resources/read) since the last
   * call, oldest first, as each named itself in its response; "?" for a response that named none.
   */
  answered(): string[];
  close(): Promise<void>;
}

/** Enough for the latest round of each CLI process the demo runs; older ones are never replayed. */
const REMEMBERED_POSTS = 32;

/**
 * `onTaskStatus` gets the body of every answer to tasks/get that goes through, as the instance sent it:
 * a task's questions reach its client there, not in a round.
 */
export async function startRouter(
  port: number,
  instances: ReadonlyMap<string, number>,
  onTaskStatus?: (body: string, contentType: string) => void,
): Promise<Router> {
  let current = [...instances.keys()][0] ?? "";
  const posts: { id: unknown; post: ForwardedPost }[] = [];
  let answers: string[] = [];
  /** Remembers the POST; says which method it calls. */
  const remember = (
    headers: Record<string, string | string[] | undefined>,
    body: string,
  ): string | undefined => {
    let id: unknown;
    let method: unknown;
    try {
      ({ id, method } = JSON.parse(body) as { id?: unknown; method?: unknown });
    } catch {
      return undefined;
    }
    const flat = Object.fromEntries(
      Object.entries(headers).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])),
    );
    posts.push({ id, post: { headers: flat, body } });
    if (posts.length > REMEMBERED_POSTS) posts.shift();
    return typeof method === "string" ? method : undefined;
  };
  const server: Server = createServer((incoming, outgoing) => {
    const target = instances.get(current);
    // Known once the body is in, which is before the instance can answer.
    let method: string | undefined;
    const upstream = forward(
      {
        host: "127.0.0.1",
        port: target,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        // Only answers a client acts on: a 401 or 503 is followed by the same round sent again.
        if (method !== undefined && isCarrierMethod(method) && response.statusCode === 200) {
          const named = response.headers[INSTANCE_HEADER];
          answers.push(typeof named === "string" ? named : "?");
        }
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        if (method === "tasks/get" && response.statusCode === 200 && onTaskStatus) {
          // Held until whole and seen, so what the demo says about it comes before the client reacts.
          const chunks: Buffer[] = [];
          let whole = false;
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () => {
            whole = true;
            const body = Buffer.concat(chunks);
            try {
              onTaskStatus(body.toString("utf8"), response.headers["content-type"] ?? "");
            } finally {
              // What the demo makes of the answer never keeps it from the client.
              outgoing.end(body);
            }
          });
          // An instance that dies mid-answer ends the client's request as a broken connection would.
          response.on("close", () => {
            if (!whole) outgoing.destroy();
          });
          return;
        }
        response.pipe(outgoing);
      },
    );
    upstream.on("error", () => {
      if (!outgoing.headersSent) outgoing.writeHead(502).end();
      else outgoing.destroy();
    });
    // A client that goes away ends the forwarded request too, as a real balancer does.
    outgoing.on("close", () => upstream.destroy());
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      if (incoming.method === "POST") method = remember(incoming.headers, body.toString("utf8"));
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    use(name) {
      if (!instances.has(name)) throw new Error(`no instance ${name}`);
      current = name;
    },
    get current() {
      return current;
    },
    post(id) {
      return posts.findLast((entry) => entry.id === id)?.post;
    },
    answered() {
      const taken = answers;
      answers = [];
      return taken;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
