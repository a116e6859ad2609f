import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuthChallenge } from "../auth-provider.js";
import { OAuthError } from "./errors.js";
import type { OAuthClientOptions } from "./oauth-client-options.js";
import { oauthClientProvider } from "./oauth-client-provider.js";
import {
  type ScriptedAuthorizationServer,
  startScriptedAuthorizationServer,
} from "./test-support/scripted-authorization-server.js";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

let as: ScriptedAuthorizationServer;
let idp: ScriptedAuthorizationServer;
let folder: string;
beforeEach(async () => {
  [as, idp] = await Promise.all([startScriptedAuthorizationServer(), startScriptedAuthorizationServer()]);
  folder = await mkdtemp(join(tmpdir(), "roundtrip-wif-"));
  idp.onToken = (call) => ({
    body: {
      access_token: `id-jag-for-${call.form.get("subject_token")}`,
      issued_token_type: ID_JAG,
      token_type: "N_A",
      expires_in: 300,
    },
  });
});
afterEach(async () => {
  await Promise.all([as.close(), idp.close(), rm(folder, { recursive: true, force: true })]);
});

function challenge(): AuthChallenge {
  return {
    resource: new URL(as.resourceUrl),
    status: 401,
    wwwAuthenticate: `Bearer resource_metadata="${as.origin}/.well-known/oauth-protected-resource/mcp"`,
    attempt: 1,
  };
}

function enterpriseClient(overrides: Partial<OAuthClientOptions> = {}) {
  return oauthClientProvider({
    grant: "identity_assertion",
    clientId: "mcp-client",
    clientSecret: "mcp-secret",
    clientIssuer: as.issuer,
    identityAssertion: {
      idpIssuer: idp.issuer,
      idpClientId: "idp-client",
      idpClientSecret: "idp-secret",
      idToken: () => "the-id-token",
    },
    ...overrides,
  });
}

describe("oauthClientProvider, identity assertion authorization grant", () => {
  it("exchanges the ID token at the IdP for an ID-JAG, then presents it to the MCP authorization server", async () => {
    const provider = enterpriseClient();
    expect(await provider.handleChallenge(challenge())).toBe(true);
    expect(await provider.authorization(new URL(as.resourceUrl))).toBe("Bearer at-1");

    const [exchange] = idp.tokenCalls;
    expect(Object.fromEntries(exchange?.form ?? [])).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: "the-id-token",
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      requested_token_type: ID_JAG,
      audience: as.issuer,
      resource: as.resourceUrl,
      scope: "mcp:read",
    });
    expect(exchange?.authorization).toBe(`Basic ${Buffer.from("idp-client:idp-secret").toString("base64")}`);
    const [bearer] = as.tokenCalls;
    expect(bearer?.form.get("grant_type")).toBe(JWT_BEARER);
    expect(bearer?.form.get("assertion")).toBe("id-jag-for-the-id-token");
    expect(bearer?.form.get("resource")).toBe(as.resourceUrl);
    expect(bearer?.authorization).toBe(`Basic ${Buffer.from("mcp-client:mcp-secret").toString("base64")}`);
  });

  it("refuses a token the IdP issued in place of an ID-JAG, and presents nothing", async () => {
    idp.onToken = () => ({
      body: {
        access_token: "x",
        issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
        token_type: "Bearer",
      },
    });
    const failure = await enterpriseClient()
      .handleChallenge(challenge())
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OAuthError);
    expect((failure as OAuthError).code).toBe("unsupported");
    expect((failure as OAuthError).message).toContain("instead of an identity assertion grant");
    expect(as.tokenCalls).toEqual([]);
  });

  it("words the IdP's refusal without the ID token", async () => {
    idp.onToken = () => ({ status: 400, body: { error: "invalid_grant", error_description: "expired" } });
    const failure = (await enterpriseClient()
      .handleChallenge(challenge())
      .catch((error: unknown) => error)) as OAuthError;
    expect(failure.code).toBe("token_request");
    expect(failure.oauthError).toBe("invalid_grant");
    expect(failure.message).toContain("sign in to the identity provider again");
    expect(failure.message).not.toContain("the-id-token");
  });

  it("is refused at construction without an IdP or without a registered client", () => {
    expect(() => oauthClientProvider({ grant: "identity_assertion", clientId: "c" })).toThrow(
      /identityAssertion/,
    );
    const identityAssertion = { idpIssuer: idp.issuer, idpClientId: "i", idToken: () => "t" };
    expect(() => oauthClientProvider({ grant: "identity_assertion", identityAssertion })).toThrow(/clientId/);
    // Without the issuer the ID-JAG's audience would be whichever server the resource names.
    expect(() =>
      oauthClientProvider({ grant: "identity_assertion", clientId: "c", identityAssertion }),
    ).toThrow(/needs clientId and clientIssuer/);
  });
});

describe("oauthClientProvider, workload identity", () => {
  function workloadClient(tokenFile: string) {
    return oauthClientProvider({
      grant: "workload_identity",
      clientId: "workload",
      clientIssuer: as.issuer,
      tokenEndpointAuthMethod: "none",
      workloadIdentity: { token: { file: tokenFile } },
    });
  }

  it("presents the token file's current content with the JWT bearer grant, read again for each grant", async () => {
    const file = join(folder, "token");
    await writeFile(file, "workload-jwt-1\n");
    as.onToken = () => ({
      body: { access_token: `at-${as.tokenCalls.length}`, token_type: "Bearer", expires_in: 1 },
    });
    const provider = workloadClient(file);
    await provider.handleChallenge(challenge());
    expect(as.tokenCalls[0]?.form.get("grant_type")).toBe(JWT_BEARER);
    expect(as.tokenCalls[0]?.form.get("assertion")).toBe("workload-jwt-1");
    expect(as.tokenCalls[0]?.form.get("client_id")).toBe("workload");
    // The token lapses at once (expires_in 1 is inside the renewal margin): the next request renews it
    // with whatever the platform has rotated into the file since.
    await writeFile(file, "workload-jwt-2\n");
    expect(await provider.authorization(new URL(as.resourceUrl))).toBe("Bearer at-2");
    expect(as.tokenCalls[1]?.form.get("assertion")).toBe("workload-jwt-2");
  });

  it("surfaces a refusal once, without retrying or switching grants", async () => {
    const file = join(folder, "token");
    await writeFile(file, "workload-jwt");
    as.onToken = () => ({ status: 400, body: { error: "invalid_grant" } });
    const failure = (await workloadClient(file)
      .handleChallenge(challenge())
      .catch((error: unknown) => error)) as OAuthError;
    expect(failure.code).toBe("token_request");
    expect(failure.message).toContain("the assertion has expired");
    expect(as.tokenCalls).toHaveLength(1);
  });

  it("says which file could not be read, and refuses an empty one", async () => {
    const missing = join(folder, "absent");
    await expect(workloadClient(missing).handleChallenge(challenge())).rejects.toThrow(
      `reading ${missing} failed`,
    );
    const empty = join(folder, "empty");
    await writeFile(empty, "\n");
    await expect(workloadClient(empty).handleChallenge(challenge())).rejects.toThrow(/is empty/);
    expect(as.tokenCalls).toEqual([]);
  });

  it("is refused at construction without a token source", () => {
    expect(() => oauthClientProvider({ grant: "workload_identity" })).toThrow(/workloadIdentity/);
    expect(() =>
      oauthClientProvider({ grant: "workload_identity", workloadIdentity: { token: { file: "" } } }),
    ).toThrow(/workloadIdentity.token must be/);
    // A workload token is presented to its one configured authorization server, never a discovered one.
    const workloadIdentity = { token: () => "workload-jwt" };
    expect(() => oauthClientProvider({ grant: "workload_identity", workloadIdentity })).toThrow(
      /needs clientId and clientIssuer/,
    );
    expect(() =>
      oauthClientProvider({ grant: "workload_identity", clientId: "w", workloadIdentity }),
    ).toThrow(/needs clientId and clientIssuer/);
  });
});
