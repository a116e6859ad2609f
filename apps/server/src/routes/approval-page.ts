import type { FastifyInstance } from "fastify";

export const APPROVALS_PATH = "/approvals";

const RELEASE = /^rel-[0-9a-f]{8}$/;

/**
 * The page the deploy tool's URL-mode elicitation points at. It shows the release and nothing else:
 * no user data, no credentials, no action, because a URL handed to a client must never be a
 * pre-authenticated link. A real deployment puts its change-review system here, signs the person in,
 * and checks that they are the user the elicitation was made for before recording an approval.
 */
export function registerApprovalPage(app: FastifyInstance): void {
  app.get<{ Params: { release: string } }>(`${APPROVALS_PATH}/:release`, async (request, reply) => {
    const { release } = request.params;
    if (!RELEASE.test(release)) return reply.code(404).type("text/plain").send("Unknown release");
    return reply
      .type("text/html; charset=utf-8")
      .header("content-security-policy", "default-src 'none'")
      .header("cache-control", "no-store")
      .send(
        `<!doctype html><title>Release ${release}</title><h1>Release ${release}</h1>` +
          "<p>Review the change, then return to your MCP client and accept the approval request to deploy.</p>",
      );
  });
}
