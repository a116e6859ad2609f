import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IssuerServer, startIssuerServer } from "../../server/auth/test-support/issuer-server.js";
import { discoverAuthorizationServer } from "./authorization-server-discovery.js";

describe("discoverAuthorizationServer", () => {
  let server: IssuerServer;
  beforeEach(async () => {
    server = await startIssuerServer();
  });
  afterEach(() => server.close());

  it("finds the metadata of an issuer with a path by OpenID Discovery appended to the path", async () => {
    const issuer = `${server.origin}/tenant1`;
    server.json("/tenant1/.well-known/openid-configuration", {
      issuer,
      token_endpoint: `${issuer}/token`,
      client_id_metadata_document_supported: true,
    });
    const metadata = await discoverAuthorizationServer(issuer);
    expect(metadata.token_endpoint).toBe(`${issuer}/token`);
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(server.hits.get("/.well-known/oauth-authorization-server/tenant1")).toBe(1);
    expect(server.hits.get("/.well-known/openid-configuration/tenant1")).toBe(1);
  });

  it("refuses metadata naming another issuer, as an OAuthError", async () => {
    server.json("/.well-known/oauth-authorization-server", { issuer: "https://attacker.example" });
    await expect(discoverAuthorizationServer(server.origin)).rejects.toMatchObject({
      name: "OAuthError",
      code: "authorization_server_metadata",
      message: expect.stringContaining("attacker.example"),
    });
  });

  it("refuses a plain http issuer off loopback", async () => {
    await expect(discoverAuthorizationServer("http://as.example")).rejects.toMatchObject({
      code: "insecure_url",
    });
  });
});
