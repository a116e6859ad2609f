import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { protectedResourceMetadataHandler } from "../../server/auth/resource-metadata-handler.js";
import {
  protectedResourceMetadata,
  protectedResourceMetadataPaths,
  protectedResourceMetadataUrl,
} from "./resource-metadata.js";

describe("protectedResourceMetadataUrl", () => {
  it("inserts the well-known segment before the resource path", () => {
    expect(protectedResourceMetadataUrl("https://mcp.example.com/mcp")).toBe(
      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
    );
    expect(protectedResourceMetadataUrl("https://mcp.example.com/v1/mcp/")).toBe(
      "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp",
    );
  });

  it("uses the root form for a resource without a path, which then has one path only", () => {
    expect(protectedResourceMetadataUrl("https://mcp.example.com")).toBe(
      "https://mcp.example.com/.well-known/oauth-protected-resource",
    );
    expect(protectedResourceMetadataPaths("https://mcp.example.com/")).toEqual([
      "/.well-known/oauth-protected-resource",
    ]);
    expect(protectedResourceMetadataPaths("https://mcp.example.com/mcp")).toEqual([
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]);
  });
});

describe("protectedResourceMetadata", () => {
  it("publishes the DPoP algorithms and whether bound tokens are required only when given (RFC 9728 §2)", () => {
    const base = {
      resource: "https://mcp.example.com/mcp",
      authorizationServers: ["https://as.example.com"],
    };
    expect(protectedResourceMetadata(base)).not.toHaveProperty("dpop_bound_access_tokens_required");
    const algs = ["ES256", "EdDSA"];
    const required = protectedResourceMetadata({
      ...base,
      dpop: { signingAlgorithms: algs, boundTokensRequired: true },
    });
    expect(required).toMatchObject({
      dpop_signing_alg_values_supported: ["ES256", "EdDSA"],
      dpop_bound_access_tokens_required: true,
    });
    algs.push("RS256");
    expect(required.dpop_signing_alg_values_supported).toEqual(["ES256", "EdDSA"]);
    expect(
      protectedResourceMetadata({ ...base, dpop: { signingAlgorithms: algs, boundTokensRequired: false } })
        .dpop_bound_access_tokens_required,
    ).toBe(false);
  });

  it("builds the document with header-only bearer tokens", () => {
    expect(
      protectedResourceMetadata({
        resource: "https://mcp.example.com/mcp",
        authorizationServers: [new URL("https://as.example.com")],
        scopesSupported: ["mcp:tools"],
        resourceName: "Example",
      }),
    ).toEqual({
      resource: "https://mcp.example.com/mcp",
      authorization_servers: ["https://as.example.com/"],
      scopes_supported: ["mcp:tools"],
      bearer_methods_supported: ["header"],
      resource_name: "Example",
    });
  });

  it("refuses what the MCP rules forbid", () => {
    const base = {
      resource: "https://mcp.example.com/mcp",
      authorizationServers: ["https://as.example.com"],
    };
    expect(() => protectedResourceMetadata({ ...base, authorizationServers: [] })).toThrow(/at least one/);
    expect(() => protectedResourceMetadata({ ...base, resource: "https://mcp.example.com/mcp#x" })).toThrow(
      /fragment/,
    );
    expect(() => protectedResourceMetadata({ ...base, resource: "http://mcp.example.com/mcp" })).toThrow(
      /https/,
    );
    expect(() => protectedResourceMetadata({ ...base, scopesSupported: ["offline_access"] })).toThrow(
      /offline_access/,
    );
  });
});

describe("protectedResourceMetadataHandler over HTTP", () => {
  let http: Server;
  let origin: string;
  const metadata = protectedResourceMetadata({
    resource: "http://127.0.0.1/mcp",
    authorizationServers: ["http://127.0.0.1:1"],
  });

  beforeAll(async () => {
    const handle = protectedResourceMetadataHandler(metadata);
    http = createServer((req, res) => {
      if (!handle(req, res)) res.writeHead(418).end();
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

  it("serves the document at both well-known paths, readable cross-origin", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource?x=1",
    ]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(await response.json()).toEqual(metadata);
    }
  });

  it("answers preflight and refuses writes, and leaves other paths to the caller", async () => {
    expect(
      (await fetch(`${origin}/.well-known/oauth-protected-resource`, { method: "OPTIONS" })).status,
    ).toBe(204);
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource`, { method: "DELETE" })).status).toBe(
      405,
    );
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource/other`)).status).toBe(418);
  });
});
