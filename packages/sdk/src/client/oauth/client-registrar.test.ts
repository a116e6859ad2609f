import { describe, expect, it } from "vitest";
import { ClientRegistrar } from "./client-registrar.js";
import type { OAuthClientOptions } from "./oauth-client-options.js";
import { memoryTokenStore, type StoredTokens, type TokenStore } from "./token-store.js";

const server = {
  issuer: "https://as.example",
  registration_endpoint: "https://as.example/register",
  token_endpoint_auth_methods_supported: ["client_secret_post", "none"],
  client_id_metadata_document_supported: true,
};
const target = { issuer: server.issuer, server, key: "k" };
const CIMD = "https://app.example/client.json";

function registrar(options: Partial<OAuthClientOptions>, store: TokenStore = memoryTokenStore()) {
  const registrations: unknown[] = [];
  const fetchImpl = (async (_url: URL, init: RequestInit) => {
    registrations.push(JSON.parse(String(init.body)));
    return Response.json({ client_id: `dyn-${registrations.length}` }, { status: 201 });
  }) as typeof fetch;
  const made = new ClientRegistrar({ grant: "authorization_code", fetch: fetchImpl, ...options }, store);
  return { registrar: made, registrations };
}

const tokens = (clientId: string, extra: Partial<StoredTokens> = {}): StoredTokens => ({
  issuer: server.issuer,
  resource: "https://mcp.example/mcp",
  clientId,
  accessToken: "at",
  tokenType: "Bearer",
  ...extra,
});

describe("ClientRegistrar", () => {
  it("uses a pre-registered client first, its method chosen from the server's list unless configured", async () => {
    const { registrar: withSecret, registrations } = registrar({
      clientId: "pre",
      clientSecret: "s",
      clientIssuer: server.issuer,
      clientMetadataUrl: CIMD,
    });
    expect(await withSecret.clientFor(target)).toEqual({
      clientId: "pre",
      clientSecret: "s",
      method: "client_secret_post",
      source: "pre-registered",
    });
    const { registrar: forced } = registrar({
      clientId: "pre",
      tokenEndpointAuthMethod: "client_secret_basic",
    });
    expect((await forced.clientFor(target)).method).toBe("client_secret_basic");
    expect(registrations).toEqual([]);
  });

  it("uses the client metadata URL with servers that take metadata documents, for a user's sign-in only", async () => {
    const { registrar: code, registrations } = registrar({ clientMetadataUrl: CIMD });
    expect(await code.clientFor(target)).toEqual({
      clientId: CIMD,
      method: "none",
      source: "metadata-document",
    });
    expect(registrations).toEqual([]);
    const unsupported = { ...target, server: { ...server, client_id_metadata_document_supported: false } };
    expect((await code.clientFor(unsupported)).source).toBe("dynamic");
    const { registrar: machine } = registrar({ grant: "client_credentials", clientMetadataUrl: CIMD });
    expect((await machine.clientFor(target)).source).toBe("dynamic");
  });

  it("registers once per issuer, recovers a registration from stored tokens, and registers again after forget", async () => {
    const store = memoryTokenStore();
    const { registrar: dynamic, registrations } = registrar({}, store);
    const unsupported = { ...target, server: { ...server, client_id_metadata_document_supported: false } };
    expect((await dynamic.clientFor(unsupported)).clientId).toBe("dyn-1");
    expect((await dynamic.clientFor(unsupported)).clientId).toBe("dyn-1");
    expect(
      (await dynamic.clientFor({ ...unsupported, issuer: "https://other.example", key: "k2" })).clientId,
    ).toBe("dyn-2");
    dynamic.forget();
    await store.set("k", tokens("stored-dyn", { clientSecret: "ss" }));
    expect(await dynamic.clientFor(unsupported)).toEqual({
      clientId: "stored-dyn",
      clientSecret: "ss",
      method: "client_secret_post",
      source: "dynamic",
    });
    expect(registrations).toHaveLength(2);
    await store.set("k", tokens("foreign", { issuer: "https://other.example" }));
    dynamic.forget();
    expect((await dynamic.clientFor(unsupported)).clientId).toBe("dyn-3");
  });

  it("finds the client a stored token was issued to", async () => {
    const { registrar: configured } = registrar({
      clientId: "pre",
      clientSecret: "s",
      clientIssuer: server.issuer,
      clientMetadataUrl: CIMD,
    });
    expect(configured.clientOf(tokens("pre"), target).source).toBe("pre-registered");
    expect(configured.clientOf(tokens(CIMD), target)).toEqual({
      clientId: CIMD,
      method: "none",
      source: "metadata-document",
    });
    expect(configured.clientOf(tokens("old", { clientSecret: "x" }), target)).toEqual({
      clientId: "old",
      clientSecret: "x",
      method: "client_secret_post",
      source: "dynamic",
    });
    const { registrar: dynamic } = registrar({});
    const unsupported = { ...target, server: { ...server, client_id_metadata_document_supported: false } };
    const registered = await dynamic.clientFor(unsupported);
    expect(dynamic.clientOf(tokens(registered.clientId), unsupported)).toBe(registered);
  });
});
