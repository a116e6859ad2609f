import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_USERS, type LocalUser } from "./accounts.js";
import { authorizationCodeToken } from "./authorization-code.js";
import {
  DEFAULT_CLIENTS,
  DEFAULT_ID_JAG_CLIENTS,
  DEFAULT_REDIRECT_URI,
  type LocalClient,
} from "./clients.js";
import { type Downstream, registerEnterpriseGrants, type WorkloadIssuer } from "./enterprise-grants.js";
import { generateSigningKey, type SigningKey } from "./keys.js";
import { loadProvider } from "./load-provider.js";
import { type LocalResource, providerConfiguration } from "./provider-config.js";
import { requestToken, type TokenResponse } from "./token-endpoint.js";
import { TokenMinter } from "./token-minting.js";

export const DEFAULT_SCOPES: readonly string[] = ["mcp:tools", "mcp:deploy"];

export interface LocalAuthServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1; the issuer URL uses it verbatim. */
  host?: string;
  /**
   * The MCP server's canonical URI: tokens for it are RFC 9068 JWTs (at+jwt). Several may be given; the
   * first is the one the token methods ask for by default.
   */
  resource: string | readonly string[];
  /** Resources whose tokens are opaque, for resource servers that use introspection. */
  opaqueResource?: string | readonly string[];
  /** The scopes every resource offers. Default `mcp:tools mcp:deploy`. */
  scopes?: readonly string[];
  clients?: readonly LocalClient[];
  users?: readonly LocalUser[];
  /** Private ES256 keys, the first signing; default one freshly generated key. */
  signingKeys?: readonly SigningKey[];
  /** Access token lifetime. Default 300 s. */
  accessTokenTtlSec?: number;
  /** For ID-JAGs: the client at the IdP → the MCP client its ID-JAGs name. Default mcp-interactive → mcp-enterprise. */
  idJagClients?: Readonly<Record<string, string>>;
  /** Issuers whose workload identity tokens the JWT bearer grant accepts. Default none. */
  workloadIssuers?: readonly WorkloadIssuer[];
  /** Downstream APIs MCP servers may exchange their callers' tokens for (RFC 8693). Default none. */
  downstreams?: readonly Downstream[];
}

export interface AuthorizationCodeOptions {
  clientId?: string;
  redirectUri?: string;
  resource?: string;
}

export interface LocalAuthServer {
  /** e.g. `http://127.0.0.1:53120`; equal to the `issuer` of its metadata and of every token. */
  readonly issuer: string;
  readonly tokenEndpoint: string;
  readonly introspectionEndpoint: string;
  readonly jwksUri: string;
  readonly clients: readonly LocalClient[];
  /** The signing keys in use, newest (signing) first. */
  signingKeys(): readonly SigningKey[];
  /** A client_credentials access token for `resource` (default: the JWT resource). */
  clientCredentialsToken(clientId: string, scope: string, options?: { resource?: string }): Promise<string>;
  /** Signs `user` in through the development pages and returns the whole token response. */
  authorizationCodeToken(
    user: string,
    scope: string,
    options?: AuthorizationCodeOptions,
  ): Promise<TokenResponse>;
  /** Publishes a new signing key ahead of the old ones, which stay in the JWKS for tokens already issued. */
  rotateSigningKey(key?: SigningKey): Promise<SigningKey>;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function listOf(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  return typeof value === "string" ? [value] : [...value];
}

/** Starts the development authorization server; nothing about it is fit for production. */
export async function startLocalAuthServer(options: LocalAuthServerOptions): Promise<LocalAuthServer> {
  const { Provider, errors, interactionPolicy } = await loadProvider();
  const resources: LocalResource[] = [
    ...listOf(options.resource).map((uri): LocalResource => ({ uri, format: "jwt" })),
    ...listOf(options.opaqueResource).map((uri): LocalResource => ({ uri, format: "opaque" })),
  ];
  const defaultResource = resources[0]?.uri;
  if (defaultResource === undefined) throw new TypeError("resource must name at least one resource URI");
  const clients = options.clients ?? DEFAULT_CLIENTS;
  let signingKeys: SigningKey[] = [...(options.signingKeys ?? [await generateSigningKey()])];
  const cookieKeys = [randomBytes(32).toString("base64url")];

  let current: Handler | undefined;
  const http = createServer((req, res) => {
    if (current) current(req, res);
    else res.writeHead(503).end();
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  const issuer = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

  // The key set is fixed at construction, so a rotation swaps in a new provider on the same issuer;
  // grants and codes survive because oidc-provider's development store is shared by the process.
  const install = () => {
    const provider = new Provider(
      issuer,
      providerConfiguration(
        {
          resources,
          scopes: options.scopes ?? DEFAULT_SCOPES,
          clients,
          users: options.users ?? DEFAULT_USERS,
          signingKeys,
          cookieKeys,
          accessTokenTtlSec: options.accessTokenTtlSec ?? 300,
        },
        { InvalidTarget: errors.InvalidTarget, policy: interactionPolicy },
      ),
    );
    registerEnterpriseGrants(
      provider,
      {
        issuer,
        minter: new TokenMinter(issuer, () => signingKeys),
        resources: new Set(resources.filter((r) => r.format === "jwt").map((r) => r.uri)),
        scopes: options.scopes ?? DEFAULT_SCOPES,
        idJagClients: options.idJagClients ?? DEFAULT_ID_JAG_CLIENTS,
        workloadIssuers: options.workloadIssuers ?? [],
        downstreams: options.downstreams ?? [],
        accessTokenTtlSec: options.accessTokenTtlSec ?? 300,
      },
      errors,
    );
    current = provider.callback();
  };
  try {
    install();
  } catch (error) {
    http.close();
    throw error;
  }

  const secretOf = (clientId: string) => {
    const client = clients.find((c) => c.id === clientId);
    if (!client || !("secret" in client) || client.secret === undefined) {
      throw new Error(
        `"${clientId}" is not a confidential client of this server; configured: ${clients.map((c) => c.id).join(", ")}`,
      );
    }
    return { id: client.id, secret: client.secret };
  };
  const interactiveClient = () => clients.find((c) => c.kind === "interactive");

  return {
    issuer,
    tokenEndpoint: `${issuer}/token`,
    introspectionEndpoint: `${issuer}/token/introspection`,
    jwksUri: `${issuer}/jwks`,
    clients,
    signingKeys: () => signingKeys,
    async clientCredentialsToken(clientId, scope, tokenOptions = {}) {
      const response = await requestToken(
        `${issuer}/token`,
        { grant_type: "client_credentials", scope, resource: tokenOptions.resource ?? defaultResource },
        secretOf(clientId),
      );
      return response.accessToken;
    },
    authorizationCodeToken(user, scope, codeOptions = {}) {
      const client = interactiveClient();
      const clientId = codeOptions.clientId ?? client?.id;
      if (clientId === undefined) throw new Error("no interactive client is configured; pass clientId");
      const registered = client?.kind === "interactive" ? client.redirectUris?.[0] : undefined;
      return authorizationCodeToken({
        issuer,
        authorizationEndpoint: `${issuer}/auth`,
        tokenEndpoint: `${issuer}/token`,
        clientId,
        redirectUri: codeOptions.redirectUri ?? registered ?? DEFAULT_REDIRECT_URI,
        resource: codeOptions.resource ?? defaultResource,
        scope,
        user,
      });
    },
    async rotateSigningKey(key) {
      const next = key ?? (await generateSigningKey());
      signingKeys = [next, ...signingKeys];
      install();
      return next;
    },
    close() {
      http.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        http.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
