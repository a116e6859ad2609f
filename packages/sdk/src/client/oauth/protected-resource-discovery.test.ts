import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IssuerServer, startIssuerServer } from "../../server/auth/test-support/issuer-server.js";
import type { OAuthError } from "./errors.js";
import {
  discoverProtectedResource,
  protectedResourceMetadataCandidates,
} from "./protected-resource-discovery.js";

describe("protectedResourceMetadataCandidates", () => {
  it("tries the challenge's resource_metadata, then the path-inserted, then the root location", () => {
    expect(
      protectedResourceMetadataCandidates(
        "https://mcp.example/tenant/mcp",
        'Bearer resource_metadata="/meta/custom.json"',
      ).map(String),
    ).toEqual([
      "https://mcp.example/meta/custom.json",
      "https://mcp.example/.well-known/oauth-protected-resource/tenant/mcp",
      "https://mcp.example/.well-known/oauth-protected-resource",
    ]);
  });

  it.each([
    "https://meta.example/custom.json",
    "http://127.0.0.1:9000/admin",
    "https://mcp.example:8443/.well-known/oauth-protected-resource/tenant/mcp",
    "http://mcp.example/.well-known/oauth-protected-resource/tenant/mcp",
  ])("ignores a resource_metadata on another origin (%s)", (hint) => {
    expect(
      protectedResourceMetadataCandidates(
        "https://mcp.example/tenant/mcp",
        `Bearer resource_metadata="${hint}"`,
      ).map(String),
    ).toEqual([
      "https://mcp.example/.well-known/oauth-protected-resource/tenant/mcp",
      "https://mcp.example/.well-known/oauth-protected-resource",
    ]);
  });

  it("tries the root location once for an endpoint at the root, and skips duplicates", () => {
    expect(
      protectedResourceMetadataCandidates(
        "https://mcp.example/",
        'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"',
      ).map(String),
    ).toEqual(["https://mcp.example/.well-known/oauth-protected-resource"]);
  });
});

describe("discoverProtectedResource", () => {
  let server: IssuerServer;
  let mcp: string;
  const document = (resource: string, extra: Record<string, unknown> = {}) => ({
    resource,
    authorization_servers: ["https://as.example"],
    ...extra,
  });

  beforeEach(async () => {
    server = await startIssuerServer();
    mcp = `${server.origin}/mcp`;
  });
  afterEach(() => server.close());

  it("follows the challenge's resource_metadata to a custom location", async () => {
    server.json("/meta/doc.json", document(mcp, { scopes_supported: ["a"] }));
    const found = await discoverProtectedResource(
      mcp,
      `Bearer resource_metadata="${server.origin}/meta/doc.json"`,
    );
    expect(found.metadataUrl).toBe(`${server.origin}/meta/doc.json`);
    expect(found.metadata.scopes_supported).toEqual(["a"]);
    expect(server.hits.get("/.well-known/oauth-protected-resource/mcp")).toBeUndefined();
  });

  it("sends no request to the host a challenge's resource_metadata names on another origin", async () => {
    const other = await startIssuerServer();
    try {
      other.json("/internal/doc.json", document(mcp));
      server.json("/.well-known/oauth-protected-resource/mcp", document(mcp));
      const found = await discoverProtectedResource(
        mcp,
        `Bearer resource_metadata="${other.origin}/internal/doc.json"`,
      );
      expect(found.metadataUrl).toBe(`${server.origin}/.well-known/oauth-protected-resource/mcp`);
      expect(other.hits.size).toBe(0);
    } finally {
      await other.close();
    }
  });

  it("falls back to the root location, whose document may name the origin", async () => {
    server.json("/.well-known/oauth-protected-resource", document(server.origin));
    const found = await discoverProtectedResource(mcp, null);
    expect(found.metadata.resource).toBe(server.origin);
    expect(server.hits.get("/.well-known/oauth-protected-resource/mcp")).toBe(1);
  });

  it("refuses a document for another resource instead of trying the next location", async () => {
    server.json("/.well-known/oauth-protected-resource/mcp", document("https://evil.example/mcp"));
    server.json("/.well-known/oauth-protected-resource", document(mcp));
    const failure = (await discoverProtectedResource(mcp).catch((e: unknown) => e)) as OAuthError;
    expect(failure.code).toBe("resource_mismatch");
    expect(failure.message).toContain("evil.example");
    expect(server.hits.get("/.well-known/oauth-protected-resource")).toBeUndefined();
  });

  it("refuses a document without authorization servers or with malformed scopes", async () => {
    server.json("/.well-known/oauth-protected-resource/mcp", { resource: mcp, authorization_servers: [] });
    await expect(discoverProtectedResource(mcp)).rejects.toThrow(/lists no authorization_servers/);
    server.json("/.well-known/oauth-protected-resource/mcp", document(mcp, { scopes_supported: "a b" }));
    await expect(discoverProtectedResource(mcp)).rejects.toThrow(/malformed scopes_supported/);
  });

  it("names every location tried when none answers", async () => {
    const failure = (await discoverProtectedResource(mcp).catch((e: unknown) => e)) as OAuthError;
    expect(failure.code).toBe("resource_metadata");
    expect(failure.message).toContain("/.well-known/oauth-protected-resource/mcp (HTTP 404)");
    expect(failure.message).toContain("/.well-known/oauth-protected-resource (HTTP 404)");
  });

  it("refuses plain http metadata off loopback unless allowed", async () => {
    await expect(discoverProtectedResource("http://mcp.example/mcp")).rejects.toMatchObject({
      code: "insecure_url",
    });
  });
});
