import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalAuthServer, requestToken, startLocalAuthServer, TokenRequestError } from "../src/index.js";

const RESOURCE = "http://127.0.0.1:9/mcp";
const DOWNSTREAM = "http://127.0.0.1:9/deployer";
const WORKLOAD_ISSUER = "https://ci.example.test";
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

let as: LocalAuthServer;
const workloadKeys = await generateKeyPair("ES256");

beforeAll(async () => {
  as = await startLocalAuthServer({
    resource: RESOURCE,
    workloadIssuers: [
      { issuer: WORKLOAD_ISSUER, jwks: [{ ...(await exportJWK(workloadKeys.publicKey)), alg: "ES256" }] },
    ],
    downstreams: [{ audience: DOWNSTREAM, clients: ["mcp-server-exchange"], scopes: ["deployments:write"] }],
  });
});
afterAll(() => as.close());

const enterprise = { id: "mcp-enterprise", secret: "mcp-enterprise-secret" };
const exchanger = { id: "mcp-server-exchange", secret: "mcp-server-exchange-secret" };

async function identityAssertion(idToken: string, overrides: Record<string, string> = {}) {
  return requestToken(as.tokenEndpoint, {
    grant_type: TOKEN_EXCHANGE,
    client_id: "mcp-interactive",
    subject_token: idToken,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    requested_token_type: ID_JAG,
    audience: as.issuer,
    resource: RESOURCE,
    scope: "mcp:tools",
    ...overrides,
  });
}

function workloadToken(claims: { iss?: string; aud?: string } = {}) {
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256" })
    .setIssuer(claims.iss ?? WORKLOAD_ISSUER)
    .setSubject("repo:roundtrip/nightly")
    .setAudience(claims.aud ?? as.issuer)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(workloadKeys.privateKey);
}

describe("local authorization server, enterprise grants", () => {
  it("exchanges a user's ID token for an ID-JAG, and the ID-JAG for an access token to the MCP server", async () => {
    const { idToken } = await as.authorizationCodeToken("alice", "openid mcp:tools");
    const exchanged = await identityAssertion(idToken as string);
    expect(exchanged.tokenType).toBe("N_A");
    expect(decodeProtectedHeader(exchanged.accessToken).typ).toBe("oauth-id-jag+jwt");
    expect(decodeJwt(exchanged.accessToken)).toMatchObject({
      iss: as.issuer,
      aud: as.issuer,
      sub: "alice",
      client_id: "mcp-enterprise",
      resource: RESOURCE,
      scope: "mcp:tools",
    });

    const granted = await requestToken(
      as.tokenEndpoint,
      { grant_type: JWT_BEARER, assertion: exchanged.accessToken, resource: RESOURCE },
      enterprise,
    );
    expect(decodeProtectedHeader(granted.accessToken)).toMatchObject({
      typ: "at+jwt",
      kid: as.signingKeys()[0]?.kid,
    });
    expect(decodeJwt(granted.accessToken)).toMatchObject({
      iss: as.issuer,
      aud: RESOURCE,
      sub: "alice",
      client_id: "mcp-enterprise",
      scope: "mcp:tools",
    });
  });

  it("refuses an ID-JAG presented by a client it does not name, and an ID token for another audience", async () => {
    const { idToken } = await as.authorizationCodeToken("bob", "openid mcp:tools");
    const { accessToken: jag } = await identityAssertion(idToken as string);
    const stolen = requestToken(as.tokenEndpoint, {
      grant_type: JWT_BEARER,
      assertion: jag,
      resource: RESOURCE,
      client_id: "mcp-workload",
    });
    await expect(stolen).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(
      identityAssertion(idToken as string, { audience: "https://elsewhere.example" }),
    ).rejects.toMatchObject({
      error: "invalid_target",
    });
  });

  it("takes a workload identity token from a configured issuer, and refuses one from any other", async () => {
    const granted = await requestToken(as.tokenEndpoint, {
      grant_type: JWT_BEARER,
      client_id: "mcp-workload",
      assertion: await workloadToken(),
      resource: RESOURCE,
    });
    expect(decodeJwt(granted.accessToken)).toMatchObject({
      aud: RESOURCE,
      sub: "repo:roundtrip/nightly",
      client_id: "mcp-workload",
      scope: "mcp:tools",
    });
    for (const assertion of [
      await workloadToken({ iss: "https://other.example" }),
      await workloadToken({ aud: RESOURCE }),
    ]) {
      const refused = requestToken(as.tokenEndpoint, {
        grant_type: JWT_BEARER,
        client_id: "mcp-workload",
        assertion,
        resource: RESOURCE,
      });
      await expect(refused).rejects.toBeInstanceOf(TokenRequestError);
      await expect(refused).rejects.toMatchObject({ error: "invalid_grant" });
    }
  });

  it("exchanges a caller's access token for a downstream one, for the configured client only", async () => {
    const caller = await as.clientCredentialsToken("mcp-machine", "mcp:deploy");
    const form = {
      grant_type: TOKEN_EXCHANGE,
      subject_token: caller,
      subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
      audience: DOWNSTREAM,
      scope: "deployments:write",
    };
    const downstream = await requestToken(as.tokenEndpoint, form, exchanger);
    expect(decodeJwt(downstream.accessToken)).toMatchObject({
      iss: as.issuer,
      aud: DOWNSTREAM,
      sub: "mcp-machine",
      client_id: "mcp-server-exchange",
      act: { sub: "mcp-server-exchange" },
      scope: "deployments:write",
    });
    // A client that may exchange tokens, but not for this downstream; and one that may not exchange at all.
    await expect(
      requestToken(as.tokenEndpoint, { ...form, client_id: "mcp-interactive" }),
    ).rejects.toMatchObject({ error: "unauthorized_client" });
    const machine = { id: "mcp-machine", secret: "mcp-machine-secret" };
    await expect(requestToken(as.tokenEndpoint, form, machine)).rejects.toMatchObject({
      error: "invalid_request",
      message: expect.stringContaining("not allowed for this client"),
    });
    await expect(
      requestToken(as.tokenEndpoint, { ...form, audience: "http://127.0.0.1:9/unknown" }, exchanger),
    ).rejects.toMatchObject({ error: "invalid_target" });
    await expect(
      requestToken(as.tokenEndpoint, { ...form, scope: "mcp:tools" }, exchanger),
    ).rejects.toMatchObject({ error: "invalid_scope" });
  });
});
