import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IssuerServer, startIssuerServer } from "../../server/auth/test-support/issuer-server.js";
import { fetchAuthorizationServerMetadata, metadataUrls } from "./authorization-server-metadata.js";

describe("metadataUrls", () => {
  it("tries RFC 8414 then OpenID Discovery for an issuer without a path", () => {
    expect(metadataUrls("https://as.example").map(String)).toEqual([
      "https://as.example/.well-known/oauth-authorization-server",
      "https://as.example/.well-known/openid-configuration",
    ]);
  });

  it("inserts the well-known segment before an issuer path, then tries the appended OpenID form", () => {
    expect(metadataUrls("https://as.example/tenant/1/").map(String)).toEqual([
      "https://as.example/.well-known/oauth-authorization-server/tenant/1",
      "https://as.example/.well-known/openid-configuration/tenant/1",
      "https://as.example/tenant/1/.well-known/openid-configuration",
    ]);
  });
});

describe("fetchAuthorizationServerMetadata", () => {
  let as: IssuerServer;
  beforeEach(async () => {
    as = await startIssuerServer();
  });
  afterEach(() => as.close());

  it("falls back to OpenID Discovery when RFC 8414 metadata is absent", async () => {
    as.json("/.well-known/openid-configuration", { issuer: as.origin, jwks_uri: `${as.origin}/keys` });
    const metadata = await fetchAuthorizationServerMetadata(as.origin);
    expect(metadata.jwks_uri).toBe(`${as.origin}/keys`);
    expect(as.hits.get("/.well-known/oauth-authorization-server")).toBe(1);
  });

  it("refuses a document naming another issuer instead of trying the next location", async () => {
    as.json("/.well-known/oauth-authorization-server", { issuer: `${as.origin}/`, jwks_uri: "x" });
    as.json("/.well-known/openid-configuration", { issuer: as.origin, jwks_uri: "y" });
    await expect(fetchAuthorizationServerMetadata(as.origin)).rejects.toThrow(/names issuer .* not "http/);
    expect(as.hits.get("/.well-known/openid-configuration")).toBeUndefined();
  });

  it("says where it looked when there is no metadata at all", async () => {
    await expect(fetchAuthorizationServerMetadata(as.origin)).rejects.toThrow(
      /no authorization server metadata .*oauth-authorization-server \(404\).*openid-configuration \(404\)/,
    );
  });

  it("refuses an http issuer on a non-loopback host", async () => {
    await expect(fetchAuthorizationServerMetadata("http://as.example")).rejects.toThrow(/must use https/);
  });
});
