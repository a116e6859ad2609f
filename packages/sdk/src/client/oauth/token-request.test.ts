import type { IncomingMessage } from "node:http";
import { exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IssuerServer, startIssuerServer } from "../../server/auth/test-support/issuer-server.js";
import { authorizationCodeFrom } from "./authorization-response.js";
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
  let metadata: { issuer: string; token_endpoint: string };
  beforeEach(async () => {
    server = await startIssuerServer();
    seen = [];
    metadata = { issuer: server.origin, token_endpoint: `${server.origin}/token` };
  });
  afterEach(() => server.close());

  function answer(status: number, body: unknown) {
    server.route("/token", async (req, res) => {
      seen.push({ body: new URLSearchParams(await bodyOf(req)), contentType: req.headers["content-type"] });
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  }

  const form = () => Object.fromEntries(seen[0]?.body ?? []);

  it("posts a client_credentials form without an absent scope and reads the token response", async () => {
    answer(200, {
      access_token: "at",
      token_type: "bearer",
      expires_in: 60,
      refresh_token: "rt",
      scope: "a",
    });
    const tokens = await requestToken(
      metadata,
      { clientId: "c", method: "none" },
      { grantType: "client_credentials", scope: undefined, resource: "https://mcp.example/mcp" },
    );
    expect(tokens).toEqual({
      accessToken: "at",
      tokenType: "bearer",
      expiresIn: 60,
      refreshToken: "rt",
      scope: "a",
    });
    expect(seen[0]?.contentType).toBe("application/x-www-form-urlencoded;charset=UTF-8");
    expect(form()).toEqual({
      grant_type: "client_credentials",
      resource: "https://mcp.example/mcp",
      client_id: "c",
    });
  });

  it("redeems a validated code with its redirect URI, verifier and resource", async () => {
    answer(200, { access_token: "at", token_type: "Bearer" });
    const callback = authorizationCodeFrom(
      new URLSearchParams({ code: "the-code", state: "s", iss: server.origin }),
      { issuer: server.origin, issRequired: true, state: "s" },
    );
    const tokens = await requestToken(
      metadata,
      { clientId: "c", method: "none" },
      {
        grantType: "authorization_code",
        callback,
        redirectUri: "http://127.0.0.1:1/cb",
        codeVerifier: "v".repeat(43),
        resource: "https://mcp.example/mcp",
      },
    );
    expect(tokens).toEqual({ accessToken: "at", tokenType: "bearer" });
    expect(form()).toEqual({
      grant_type: "authorization_code",
      code: "the-code",
      redirect_uri: "http://127.0.0.1:1/cb",
      code_verifier: "v".repeat(43),
      resource: "https://mcp.example/mcp",
      client_id: "c",
    });
  });

  it("turns a refusal into an OAuthError with the server's code and advice, without the grant's secrets", async () => {
    answer(400, { error: "invalid_grant", error_description: "refresh token expired" });
    const failure = (await requestToken(
      metadata,
      { clientId: "c", clientSecret: "secret-client", method: "client_secret_post" },
      { grantType: "refresh_token", refreshToken: "secret-refresh", resource: "https://mcp.example/mcp" },
    ).catch((e: unknown) => e)) as OAuthError;
    expect(failure.code).toBe("token_request");
    expect(failure.oauthError).toBe("invalid_grant");
    expect(failure.message).toContain("refresh token expired");
    expect(failure.message).toContain("sign in again");
    for (const secret of ["secret-refresh", "secret-client"]) expect(failure.message).not.toContain(secret);
  });

  it("refuses a 200 without an access token", async () => {
    answer(200, { token_type: "Bearer" });
    await expect(
      requestToken(
        metadata,
        { clientId: "c", method: "none" },
        { grantType: "client_credentials", resource: "https://mcp.example/mcp" },
      ),
    ).rejects.toMatchObject({ code: "token_request", message: expect.stringMatching(/access_token/) });
  });

  it("refuses an http token endpoint off loopback before sending anything", async () => {
    await expect(
      requestToken(
        { issuer: "http://as.example", token_endpoint: "http://as.example/token" },
        { clientId: "c", method: "none" },
        { grantType: "client_credentials", resource: "https://mcp.example/mcp" },
      ),
    ).rejects.toMatchObject({ code: "insecure_url" });
  });

  it("authenticates a private_key_jwt client with an assertion the server verifies by its public key", async () => {
    answer(200, { access_token: "at", token_type: "Bearer" });
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    await requestToken(
      metadata,
      {
        clientId: "jwt-client",
        privateKey: { key: await exportPKCS8(privateKey), alg: "ES256", kid: "k1" },
        method: "private_key_jwt",
      },
      { grantType: "client_credentials", resource: "https://mcp.example/mcp" },
    );
    const sent = form();
    expect(sent.client_assertion_type).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    expect(sent.client_secret).toBeUndefined();
    const { payload, protectedHeader } = await jwtVerify(sent.client_assertion as string, publicKey, {
      issuer: "jwt-client",
      subject: "jwt-client",
      audience: server.origin,
    });
    expect(protectedHeader).toMatchObject({ alg: "ES256", kid: "k1" });
    expect(payload.jti).toEqual(expect.any(String));
    const other = await generateKeyPair("ES256");
    await expect(jwtVerify(sent.client_assertion as string, other.publicKey)).rejects.toThrow();
  });

  it("authenticates a client_secret_jwt client with an HS256 assertion under its secret", async () => {
    answer(200, { access_token: "at", token_type: "Bearer" });
    await requestToken(
      metadata,
      {
        clientId: "hmac-client",
        clientSecret: "a-long-shared-secret-0123456789",
        method: "client_secret_jwt",
      },
      { grantType: "client_credentials", resource: "https://mcp.example/mcp" },
    );
    const assertion = form().client_assertion as string;
    const { payload } = await jwtVerify(
      assertion,
      new TextEncoder().encode("a-long-shared-secret-0123456789"),
      {
        issuer: "hmac-client",
        audience: server.origin,
      },
    );
    expect(payload.sub).toBe("hmac-client");
    expect(form().client_secret).toBeUndefined();
  });
});
