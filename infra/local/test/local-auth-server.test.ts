import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  basicAuthorization,
  type LocalAuthServer,
  startLocalAuthServer,
  TokenRequestError,
} from "../src/index.js";

const RESOURCE = "http://127.0.0.1:9/mcp";
const OPAQUE_RESOURCE = "http://127.0.0.1:9/opaque-mcp";

let as: LocalAuthServer;

beforeAll(async () => {
  as = await startLocalAuthServer({ resource: RESOURCE, opaqueResource: OPAQUE_RESOURCE });
});
afterAll(() => as.close());

describe("local authorization server", () => {
  it("publishes RFC 8414 metadata whose issuer is exactly its URL, with PKCE S256 and resource indicators", async () => {
    const metadata = (await (
      await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(as.issuer);
    expect(metadata.jwks_uri).toBe(as.jwksUri);
    expect(metadata.token_endpoint).toBe(as.tokenEndpoint);
    expect(metadata.introspection_endpoint).toBe(as.introspectionEndpoint);
    expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(["client_credentials", "authorization_code"]),
    );
  });

  it("issues an RFC 9068 at+jwt for the machine client, bound to the requested resource", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: "ES256", typ: "at+jwt", kid: as.signingKeys()[0]?.kid });
    expect(decodeJwt(token)).toMatchObject({
      iss: as.issuer,
      aud: RESOURCE,
      client_id: "mcp-machine",
      sub: "mcp-machine",
      scope: "mcp:tools",
    });
  });

  it("refuses a resource it does not serve with invalid_target", async () => {
    const refused = as.clientCredentialsToken("mcp-machine", "mcp:tools", {
      resource: "http://127.0.0.1:9/other",
    });
    await expect(refused).rejects.toMatchObject({ status: 400, error: "invalid_target" });
  });

  it("refuses scopes beyond what a machine client is registered for", async () => {
    const limited = await startLocalAuthServer({
      resource: RESOURCE,
      clients: [{ kind: "machine", id: "reader", secret: "reader-secret", scopes: ["mcp:tools"] }],
    });
    try {
      const refused = limited.clientCredentialsToken("reader", "mcp:tools mcp:deploy");
      await expect(refused).rejects.toMatchObject({ status: 400, error: "invalid_scope" });
      await expect(refused).rejects.toBeInstanceOf(TokenRequestError);
    } finally {
      await limited.close();
    }
  });

  it("signs alice in through the development pages and issues her a token for the resource", async () => {
    const response = await as.authorizationCodeToken("alice", "mcp:tools");
    expect(decodeProtectedHeader(response.accessToken).typ).toBe("at+jwt");
    expect(decodeJwt(response.accessToken)).toMatchObject({
      iss: as.issuer,
      aud: RESOURCE,
      sub: "alice",
      client_id: "mcp-interactive",
      scope: "mcp:tools",
    });
  });

  it("refuses to sign in a user that is not configured", async () => {
    await expect(as.authorizationCodeToken("mallory", "mcp:tools")).rejects.toThrow(/not an account/);
  });

  it("requires PKCE on every authorization request", async () => {
    const url = new URL(`${as.issuer}/auth`);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: "mcp-interactive",
      redirect_uri: "http://127.0.0.1/callback",
      scope: "mcp:tools",
      state: "s",
      resource: RESOURCE,
    }).toString();
    const response = await fetch(url, { redirect: "manual" });
    const callback = new URL(response.headers.get("location") ?? "http://invalid/");
    expect(callback.searchParams.get("error")).toBe("invalid_request");
    expect(callback.searchParams.get("error_description")).toMatch(/PKCE/);
  });

  it("issues opaque tokens for the opaque resource and introspects them only for a resource server", async () => {
    const token = await as.clientCredentialsToken("mcp-machine", "mcp:tools", { resource: OPAQUE_RESOURCE });
    expect(token.split(".")).toHaveLength(1);
    const introspect = async (id: string, secret: string) => {
      const response = await fetch(as.introspectionEndpoint, {
        method: "POST",
        headers: {
          authorization: basicAuthorization({ id, secret }),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ token }),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    expect(await introspect("mcp-resource-server", "mcp-resource-server-secret")).toMatchObject({
      active: true,
      aud: OPAQUE_RESOURCE,
      client_id: "mcp-machine",
      scope: "mcp:tools",
    });
    expect(await introspect("mcp-machine", "mcp-machine-secret")).toEqual({ active: false });
  });
});
