import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { fetchAuthorizationServerMetadata, type TokenVerifier } from "@roundtrip/sdk/auth";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ApprovalStore, Approver } from "../approvals/approval-store.js";

export const APPROVALS_PATH = "/approvals";
/** The sign-in redirect URI's path, on the page's origin (infra/local's interactive client: loopback /callback). */
export const CALLBACK_PATH = "/callback";

const RELEASE = /^rel-[0-9a-f]{8}$/;
const APPROVER_COOKIE = "roundtrip_approver";
const LOGIN_COOKIE = "roundtrip_login";
const APPROVER_TTL_S = 600;
const LOGIN_TTL_S = 600;
const MAX_LOGINS = 1_000;

export interface ApprovalPageOptions {
  approvals: ApprovalStore;
  /** The authorization server whose users approve; its metadata gives the endpoints. */
  issuer: string;
  /** The public client (authorization code + PKCE) the page signs people in with. */
  clientId: string;
  /** The RFC 8707 resource the sign-in token is for: this server's canonical URI. */
  resource: string;
  scopes: readonly string[];
  /** The server's own access-token verifier: the approver is whoever the verified token names. */
  verifier: TokenVerifier;
}

interface Endpoints {
  authorization_endpoint: string;
  token_endpoint: string;
  /** RFC 9207: the issuer promises to name itself in every authorization response. */
  issParameter: boolean;
}

interface PendingLogin {
  release: string;
  verifier: string;
  redirectUri: string;
  expiresAt: number;
}

const b64 = (value: string) => Buffer.from(value, "utf8").toString("base64url");
const unb64 = (value: string) => Buffer.from(value, "base64url").toString("utf8");

function equalText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function cookiesOf(request: FastifyRequest): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0) cookies[part.slice(0, separator).trim()] = part.slice(separator + 1).trim();
  }
  return cookies;
}

function html(reply: FastifyReply, status: number, title: string, body: string) {
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .header("content-security-policy", "default-src 'none'; form-action 'self'")
    .header("cache-control", "no-store")
    .header("x-frame-options", "DENY")
    .send(`<!doctype html><title>${escapeHtml(title)}</title>${body}`);
}

/**
 * The page the deploy tool's URL-mode elicitation points at. The URL carries nothing but the release:
 * it is never a pre-authenticated link. The viewer signs in at the authorization server (authorization
 * code + PKCE S256), and only the user who asked for the deployment (same issuer and subject) sees the
 * Approve button; the approval is recorded in the store, where the deploy tool looks for it.
 *
 * The approver cookie is HMAC-signed with a key made at start, so it is valid on this process only;
 * behind a load balancer, keep the page's requests on one instance or share the key.
 */
export async function registerApprovalPage(
  app: FastifyInstance,
  options: ApprovalPageOptions,
): Promise<void> {
  const key = randomBytes(32);
  const mac = (text: string) => createHmac("sha256", key).update(text).digest("base64url");
  const logins = new Map<string, PendingLogin>();
  let endpoints: Promise<Endpoints> | undefined;

  // The SDK's discovery: the document must name exactly the configured issuer.
  const discover = (): Promise<Endpoints> => {
    endpoints ??= (async () => {
      const metadata = await fetchAuthorizationServerMetadata(options.issuer);
      const { authorization_endpoint, token_endpoint } = metadata;
      if (typeof authorization_endpoint !== "string" || typeof token_endpoint !== "string") {
        throw new Error(`the metadata of ${options.issuer} names no authorization or token endpoint`);
      }
      return {
        authorization_endpoint,
        token_endpoint,
        issParameter: metadata.authorization_response_iss_parameter_supported === true,
      };
    })();
    endpoints.catch(() => {
      endpoints = undefined;
    });
    return endpoints;
  };

  const approverCookie = (approver: Approver, secure: boolean) => {
    const expiresAt = Math.floor(Date.now() / 1000) + APPROVER_TTL_S;
    const payload = `${b64(approver.subject)}.${b64(approver.issuer)}.${expiresAt}`;
    return `${APPROVER_COOKIE}=${payload}.${mac(`approver|${payload}`)}; Path=${APPROVALS_PATH}; Max-Age=${APPROVER_TTL_S}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
  };

  /** The signed-in approver, if the cookie is this process's own, unexpired and intact. */
  const approverOf = (request: FastifyRequest): (Approver & { cookie: string }) | undefined => {
    const cookie = cookiesOf(request)[APPROVER_COOKIE];
    const parts = cookie?.split(".");
    if (cookie === undefined || parts?.length !== 4) return undefined;
    const [subject = "", issuer = "", expiry = "", signature = ""] = parts;
    if (!equalText(signature, mac(`approver|${subject}.${issuer}.${expiry}`))) return undefined;
    if (!(Number(expiry) > Date.now() / 1000)) return undefined;
    return { subject: unb64(subject), issuer: unb64(issuer), cookie };
  };

  // Per page: a fresh nonce, bound by the MAC to the approver cookie and the release.
  const csrfToken = (cookie: string, release: string) => {
    const nonce = randomBytes(16).toString("base64url");
    return `${nonce}.${mac(`csrf|${nonce}|${cookie}|${release}`)}`;
  };
  const csrfValid = (token: unknown, cookie: string, release: string) => {
    if (typeof token !== "string") return false;
    const [nonce = "", signature = "", ...rest] = token.split(".");
    return (
      rest.length === 0 && nonce !== "" && equalText(signature, mac(`csrf|${nonce}|${cookie}|${release}`))
    );
  };

  const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

  await app.register(async (scope) => {
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: 4096 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    scope.get<{ Params: { release: string } }>(`${APPROVALS_PATH}/:release`, async (request, reply) => {
      const { release } = request.params;
      const record = RELEASE.test(release) ? await options.approvals.status(release) : undefined;
      if (!record) return reply.code(404).type("text/plain").send("Unknown release");
      const title = `Release ${release}`;
      const heading = `<h1>${title}</h1><p>${escapeHtml(record.service)} to ${escapeHtml(record.env)}</p>`;
      if (record.state === "approved") {
        return html(reply, 200, title, `${heading}<p>Approved. Return to your MCP client.</p>`);
      }
      const viewer = approverOf(request);
      if (!viewer) {
        return html(
          reply,
          200,
          title,
          `${heading}<p>Sign in as the user who asked for this deployment to approve it.</p>` +
            `<p><a href="${APPROVALS_PATH}/${release}/sign-in">Sign in</a></p>`,
        );
      }
      if (viewer.subject !== record.requester.subject || viewer.issuer !== record.requester.issuer) {
        return html(
          reply,
          403,
          title,
          `${heading}<p>Only the user who asked for this deployment can approve it.</p>`,
        );
      }
      const token = csrfToken(viewer.cookie, release);
      return html(
        reply,
        200,
        title,
        `${heading}<form method="post" action="${APPROVALS_PATH}/${release}/approve">` +
          `<input type="hidden" name="csrf" value="${token}"><button type="submit">Approve</button></form>`,
      );
    });

    scope.post<{ Params: { release: string }; Body: Record<string, string> | undefined }>(
      `${APPROVALS_PATH}/:release/approve`,
      async (request, reply) => {
        const { release } = request.params;
        if (!RELEASE.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
        const viewer = approverOf(request);
        if (!viewer) return reply.code(403).type("text/plain").send("Sign in first");
        if (!csrfValid(request.body?.csrf, viewer.cookie, release)) {
          return reply.code(403).type("text/plain").send("Missing or invalid form token; reload the page");
        }
        const outcome = await options.approvals.approve(release, viewer);
        if (outcome === "unknown") return reply.code(404).type("text/plain").send("Unknown release");
        if (outcome === "not-requester") {
          return reply
            .code(403)
            .type("text/plain")
            .send("Only the user who asked for this deployment can approve it");
        }
        request.log.info({ release }, "release approved");
        return html(reply, 200, `Release ${release}`, "<p>Approved. Return to your MCP client.</p>");
      },
    );

    scope.get<{ Params: { release: string } }>(
      `${APPROVALS_PATH}/:release/sign-in`,
      async (request, reply) => {
        const { release } = request.params;
        if (!RELEASE.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
        const { authorization_endpoint } = await discover();
        const now = Date.now();
        for (const [state, login] of logins) if (login.expiresAt <= now) logins.delete(state);
        if (logins.size >= MAX_LOGINS)
          return reply.code(503).type("text/plain").send("Too many sign-ins in progress");
        const state = randomBytes(16).toString("base64url");
        const verifier = randomBytes(32).toString("base64url");
        const redirectUri = `${originOf(request)}${CALLBACK_PATH}`;
        logins.set(state, { release, verifier, redirectUri, expiresAt: now + LOGIN_TTL_S * 1000 });
        const target = new URL(authorization_endpoint);
        target.search = new URLSearchParams({
          response_type: "code",
          client_id: options.clientId,
          redirect_uri: redirectUri,
          scope: ["openid", ...options.scopes].join(" "),
          state,
          code_challenge: createHash("sha256").update(verifier).digest("base64url"),
          code_challenge_method: "S256",
          resource: options.resource,
        }).toString();
        // The state is also bound to this browser, so a callback started elsewhere is not accepted here.
        return reply
          .header(
            "set-cookie",
            `${LOGIN_COOKIE}=${state}; Path=${CALLBACK_PATH}; Max-Age=${LOGIN_TTL_S}; HttpOnly; SameSite=Lax${request.protocol === "https" ? "; Secure" : ""}`,
          )
          .redirect(target.href);
      },
    );

    scope.get<{ Querystring: Record<string, string | undefined> }>(CALLBACK_PATH, async (request, reply) => {
      const { state, code, iss } = request.query;
      const login = state === undefined ? undefined : logins.get(state);
      if (
        state === undefined ||
        !login ||
        cookiesOf(request)[LOGIN_COOKIE] !== state ||
        login.expiresAt <= Date.now()
      ) {
        return reply.code(400).type("text/plain").send("Sign-in expired or not started here; start again");
      }
      logins.delete(state);
      // RFC 9207: a response naming another issuer, or none when the issuer promises to name itself, is
      // not acted on (not even its error fields).
      const { token_endpoint, issParameter } = await discover();
      if ((iss === undefined && issParameter) || (iss !== undefined && iss !== options.issuer)) {
        return reply.code(400).type("text/plain").send("Sign-in answered by another issuer");
      }
      if (code === undefined) return reply.code(403).type("text/plain").send("Sign-in was not completed");
      const response = await fetch(token_endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: login.redirectUri,
          code_verifier: login.verifier,
          client_id: options.clientId,
          resource: options.resource,
        }),
      });
      const tokens = (await response.json().catch(() => ({}))) as { access_token?: unknown };
      if (!response.ok || typeof tokens.access_token !== "string") {
        request.log.warn({ status: response.status }, "approval sign-in: token request refused");
        return reply.code(403).type("text/plain").send("Sign-in failed");
      }
      const principal = await options.verifier.verify(tokens.access_token).catch(() => undefined);
      if (principal?.subject === undefined || principal.issuer !== options.issuer) {
        return reply.code(403).type("text/plain").send("Sign-in failed");
      }
      return reply
        .header(
          "set-cookie",
          approverCookie(
            { subject: principal.subject, issuer: principal.issuer },
            request.protocol === "https",
          ),
        )
        .redirect(`${APPROVALS_PATH}/${login.release}`);
    });
  });
}
