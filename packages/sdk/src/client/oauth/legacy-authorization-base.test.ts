import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IssuerServer, startIssuerServer } from "../../server/auth/test-support/issuer-server.js";
import type { OAuthError } from "./errors.js";
import { legacyAuthorizationBase } from "./legacy-authorization-base.js";
import { findProtectedResource } from "./protected-resource-discovery.js";

let server: IssuerServer;
beforeEach(async () => {
  server = await startIssuerServer();
});
afterEach(() => server.close());

const mcp = () => new URL(`${server.origin}/v1/mcp`);

describe("a 2025-03-26 server that publishes no protected resource metadata", () => {
  it("is found absent only when every location answers 404", async () => {
    expect(await findProtectedResource(mcp(), null, {})).toBeUndefined();
    // An outage is not absence: it never turns into the fallback.
    server.json("/.well-known/oauth-protected-resource", {}, 503);
    const failure = (await findProtectedResource(mcp(), null, {}).catch((e: unknown) => e)) as OAuthError;
    expect(failure.code).toBe("resource_metadata");
    expect(failure.message).toContain("HTTP 503");
  });

  it("is its own authorization server at its origin, read from its RFC 8414 metadata there", async () => {
    const metadata = {
      issuer: server.origin,
      authorization_endpoint: `${server.origin}/oauth/authorize`,
      token_endpoint: `${server.origin}/oauth/token`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
    };
    server.json("/.well-known/oauth-authorization-server", metadata);
    const base = await legacyAuthorizationBase(mcp(), {});
    expect(base.issuer).toBe(server.origin);
    expect(base.metadata).toEqual({ resource: mcp().href, authorization_servers: [server.origin] });
    expect(base.server).toMatchObject(metadata);
  });

  it("without any metadata, uses /authorize, /token and /register on its origin", async () => {
    const base = await legacyAuthorizationBase(mcp(), {});
    expect(base.server).toMatchObject({
      issuer: server.origin,
      authorization_endpoint: `${server.origin}/authorize`,
      token_endpoint: `${server.origin}/token`,
      registration_endpoint: `${server.origin}/register`,
      code_challenge_methods_supported: ["S256"],
    });
  });

  it("refuses metadata at its origin that names another issuer, rather than guessing past it", async () => {
    server.json("/.well-known/oauth-authorization-server", {
      issuer: "https://attacker.example",
      authorization_endpoint: "https://attacker.example/authorize",
      token_endpoint: "https://attacker.example/token",
      response_types_supported: ["code"],
    });
    const failure = (await legacyAuthorizationBase(mcp(), {}).catch((e: unknown) => e)) as OAuthError;
    expect(failure.code).toBe("authorization_server_metadata");
    expect(failure.message).toContain("attacker.example");
  });
});
