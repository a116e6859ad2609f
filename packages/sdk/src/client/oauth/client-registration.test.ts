import type { IncomingMessage } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IssuerServer, startIssuerServer } from "../../server/auth/test-support/issuer-server.js";
import { checkClientMetadataUrl, registerClient } from "./client-registration.js";

async function jsonOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
}

describe("registerClient", () => {
  let server: IssuerServer;
  let requests: Record<string, unknown>[];
  beforeEach(async () => {
    server = await startIssuerServer();
    requests = [];
  });
  afterEach(() => server.close());

  function answer(status: number, body: (request: Record<string, unknown>) => unknown) {
    server.route("/register", async (req, res) => {
      const request = await jsonOf(req);
      requests.push(request);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body(request)));
    });
  }

  const metadata = (extra: Record<string, unknown> = {}) => ({
    issuer: server.origin,
    registration_endpoint: `${server.origin}/register`,
    ...extra,
  });

  it("registers a native public client for a loopback redirect, with the caller's metadata on top", async () => {
    answer(201, () => ({ client_id: "new-client" }));
    const registration = await registerClient(metadata({ token_endpoint_auth_methods_supported: ["none"] }), {
      grant: "authorization_code",
      redirectUri: "http://127.0.0.1:9000/cb",
      clientMetadata: { client_name: "My CLI", logo_uri: "https://app.example/logo.png" },
    });
    expect(registration).toEqual({ clientId: "new-client", method: "none", source: "dynamic" });
    expect(requests[0]).toEqual({
      client_name: "My CLI",
      application_type: "native",
      redirect_uris: ["http://127.0.0.1:9000/cb"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      logo_uri: "https://app.example/logo.png",
    });
  });

  it("asks for a secret-based method when the server supports no public clients, and keeps the secret", async () => {
    answer(201, (request) => ({
      client_id: "conf",
      client_secret: "s",
      token_endpoint_auth_method: request.token_endpoint_auth_method,
    }));
    const registration = await registerClient(
      metadata({ token_endpoint_auth_methods_supported: ["client_secret_post"] }),
      { grant: "authorization_code", redirectUri: "https://app.example/cb" },
    );
    expect(requests[0]).toMatchObject({
      application_type: "web",
      token_endpoint_auth_method: "client_secret_post",
    });
    expect(registration).toEqual({
      clientId: "conf",
      clientSecret: "s",
      method: "client_secret_post",
      source: "dynamic",
    });
  });

  it("registers a client_credentials client without redirect URIs", async () => {
    answer(201, () => ({ client_id: "svc", client_secret: "s" }));
    const registration = await registerClient(metadata(), { grant: "client_credentials" });
    expect(requests[0]).toMatchObject({
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
    });
    expect(registration.method).toBe("client_secret_basic");
  });

  it("says what to configure when the server has no registration endpoint or refuses", async () => {
    await expect(
      registerClient(
        { issuer: server.origin, client_id_metadata_document_supported: true },
        { grant: "authorization_code" },
      ),
    ).rejects.toThrow(/set clientMetadataUrl/);
    answer(400, () => ({ error: "invalid_redirect_uri", error_description: "not allowed" }));
    await expect(registerClient(metadata(), { grant: "authorization_code" })).rejects.toMatchObject({
      code: "client_registration",
      oauthError: "invalid_redirect_uri",
      message: expect.stringContaining("set clientId instead"),
    });
  });
});

describe("checkClientMetadataUrl", () => {
  it("accepts an https URL with a path and refuses anything else", () => {
    expect(checkClientMetadataUrl("https://app.example/client.json")).toBe("https://app.example/client.json");
    for (const bad of [
      "https://app.example",
      "http://app.example/c.json",
      "https://app.example/c#x",
      "c.json",
    ]) {
      expect(() => checkClientMetadataUrl(bad)).toThrow(/clientMetadataUrl/);
    }
  });
});
