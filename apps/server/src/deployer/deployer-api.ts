import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidTokenError, jwtVerifier } from "@roundtrip/sdk/resource-server";

/** A rollout the deployer accepted, and for whom. */
export interface RecordedRollout {
  release: string;
  service: string;
  env: string;
  /** The token's subject: the user the MCP server acts for. */
  subject: string | undefined;
  /** The token's client: the MCP server that exchanged it. */
  clientId: string;
}

export interface DeployerApiOptions {
  /** The authorization server whose tokens it accepts, exactly as their `iss` spells it. */
  issuer: string;
  /** Its own name: the `aud` its tokens must carry (and no MCP server's). */
  audience: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  allowInsecureHttp?: boolean;
}

export interface DeployerApi {
  /** `http://host:port` */
  readonly url: string;
  /** Every rollout it accepted, oldest first. */
  readonly rollouts: readonly RecordedRollout[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024;

/**
 * The downstream "deployer" API the reference server's deploy tool calls: `POST /rollouts` with a
 * bearer token whose issuer and audience it verifies (the SDK's JWT verifier), so a token meant for the
 * MCP server, such as the caller's own, is refused. It records the rollout; a real one would deploy.
 */
export async function startDeployerApi(options: DeployerApiOptions): Promise<DeployerApi> {
  const verifier = jwtVerifier({
    issuer: options.issuer,
    audience: options.audience,
    ...(options.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
  });
  const rollouts: RecordedRollout[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://deployer").pathname;
    if (path === "/healthz" && req.method === "GET") return send(res, 200, { status: "ok" });
    if (path !== "/rollouts") return send(res, 404, { error: "not_found" });
    if (req.method !== "POST") return send(res, 405, { error: "method_not_allowed" });
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (!token) return refuse(res, "invalid_request", "a bearer token is required");
    let principal: Awaited<ReturnType<typeof verifier.verify>>;
    try {
      principal = await verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) return refuse(res, "invalid_token", error.message);
      throw error;
    }
    const body = await readJson(req);
    const { release, service, env } = (body ?? {}) as Record<string, unknown>;
    if (typeof release !== "string" || typeof service !== "string" || typeof env !== "string") {
      return send(res, 400, {
        error: "invalid_request",
        error_description: "release, service and env are required",
      });
    }
    rollouts.push({ release, service, env, subject: principal.subject, clientId: principal.clientId });
    send(res, 201, { release, status: "rolling-out" });
  };

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { error: "server_error" });
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve);
  });
  const { address, port } = http.address() as AddressInfo;
  return {
    url: `http://${address.includes(":") ? `[${address}]` : address}:${port}`,
    rollouts,
    close() {
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(body));
}

/** RFC 6750 §3: the refusal and its reason in the challenge; the token itself is never echoed. */
function refuse(res: ServerResponse, error: string, description: string): void {
  const quoted = description.replace(/["\\]/g, "'");
  send(
    res,
    401,
    { error, error_description: description },
    {
      "www-authenticate": `Bearer error="${error}", error_description="${quoted}"`,
    },
  );
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}
