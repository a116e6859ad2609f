import type { IncomingMessage } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IssuerServer, startIssuerServer } from "../../server/auth/test-support/issuer-server.js";
import type { OAuthError } from "./errors.js";
import { requestToken } from "./token-request.js";

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

describe("requestToken", () => {
  let server: IssuerServer;
  let seen: { body: URLSearchParams; contentType: string | undefined }[];
  beforeEach(async () => {
    server = await startIssuerServer();
    seen = [];
  });
  afterEach(() => server.close());

  function answer(status: number, body: unknown) {
    server.route("/token", async (req, res) => {
      seen.push({ body: new URLSearchParams(await bodyOf(req)), contentType: req.headers["content-type"] });
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  }

  it("posts a form without undefined fields and reads the token response", async () => {
    answer(200, {
      access_token: "at",
      token_type: "bearer",
      expires_in: 60,
      refresh_token: "rt",
      scope: "a",
    });
    const tokens = await requestToken(
      new URL(`${server.origin}/token`),
      { grant_type: "client_credentials", scope: undefined, resource: "https://mcp.example/mcp" },
      { clientId: "c", method: "none" },
    );
    expect(tokens).toEqual({
      accessToken: "at",
      tokenType: "bearer",
      expiresIn: 60,
      refreshToken: "rt",
      scope: "a",
    });
    expect(seen[0]?.contentType).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(seen[0]?.body ?? [])).toEqual({
      grant_type: "client_credentials",
      resource: "https://mcp.example/mcp",
      client_id: "c",
    });
  });

  it("turns a refusal into an OAuthError with the server's code and advice, without the grant's secrets", async () => {
    answer(400, { error: "invalid_grant", error_description: "code expired" });
    const failure = (await requestToken(
      new URL(`${server.origin}/token`),
      { grant_type: "authorization_code", code: "secret-code", code_verifier: "secret-verifier" },
      { clientId: "c", clientSecret: "secret-client", method: "client_secret_post" },
    ).catch((e: unknown) => e)) as OAuthError;
    expect(failure.code).toBe("token_request");
    expect(failure.oauthError).toBe("invalid_grant");
    expect(failure.message).toContain("code expired");
    expect(failure.message).toContain("sign in again");
    for (const secret of ["secret-code", "secret-verifier", "secret-client"])
      expect(failure.message).not.toContain(secret);
  });

  it("refuses a 200 without an access token", async () => {
    answer(200, { token_type: "Bearer" });
    await expect(
      requestToken(
        new URL(`${server.origin}/token`),
        { grant_type: "client_credentials" },
        { clientId: "c", method: "none" },
      ),
    ).rejects.toThrow(/no access_token/);
  });
});
