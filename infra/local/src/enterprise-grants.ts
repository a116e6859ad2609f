import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JWK,
  type JWTPayload,
  jwtVerify,
} from "jose";
import type { Provider, errors as ProviderErrors, TokenEndpointGrantContext } from "oidc-provider";
import { JWT_BEARER_GRANT, TOKEN_EXCHANGE_GRANT } from "./clients.js";
import { ID_JAG_TYP, type TokenMinter } from "./token-minting.js";

const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
const ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
const ID_JAG_TTL_SEC = 300;

/** An issuer of workload identity tokens (a CI platform, a cluster) whose tokens the JWT bearer grant takes. */
export interface WorkloadIssuer {
  issuer: string;
  /** Its public signing keys. */
  jwks: readonly JWK[];
}

/**
 * A downstream API an MCP server may call for its callers: the clients allowed to exchange a caller's
 * access token for one with this audience (RFC 8693), and the most that token may carry.
 */
export interface Downstream {
  audience: string;
  clients: readonly string[];
  scopes: readonly string[];
}

export interface EnterpriseGrantSettings {
  issuer: string;
  minter: TokenMinter;
  /** The MCP servers (RFC 8707 resources) whose access tokens are JWTs. */
  resources: ReadonlySet<string>;
  /** The client at the IdP → the client at the MCP authorization server that its ID-JAGs name. */
  idJagClients: Readonly<Record<string, string>>;
  /** The scopes the MCP resources offer. */
  scopes: readonly string[];
  workloadIssuers: readonly WorkloadIssuer[];
  downstreams: readonly Downstream[];
  accessTokenTtlSec: number;
}

type GrantContext = TokenEndpointGrantContext<Record<string, string | undefined>>;

/**
 * Adds the grants of enterprise-managed authorization to oidc-provider's token endpoint, which
 * authenticates the client first: token exchange (RFC 8693) issuing ID-JAGs for ID tokens this server
 * issued, and downstream access tokens for its own access tokens; and the JWT bearer grant (RFC 7523)
 * taking an ID-JAG this server issued or a workload identity token from a configured issuer.
 */
export function registerEnterpriseGrants(
  provider: Provider,
  settings: EnterpriseGrantSettings,
  errors: typeof ProviderErrors,
): void {
  const grants = new EnterpriseGrants(settings, errors);
  provider.registerGrantType(TOKEN_EXCHANGE_GRANT, (ctx: GrantContext) => grants.exchange(ctx), [
    "subject_token",
    "subject_token_type",
    "requested_token_type",
    "audience",
    "resource",
    "scope",
  ]);
  provider.registerGrantType(JWT_BEARER_GRANT, (ctx: GrantContext) => grants.bearer(ctx), [
    "assertion",
    "resource",
    "scope",
  ]);
}

class EnterpriseGrants {
  readonly #settings: EnterpriseGrantSettings;
  readonly #errors: typeof ProviderErrors;

  constructor(settings: EnterpriseGrantSettings, errors: typeof ProviderErrors) {
    this.#settings = settings;
    this.#errors = errors;
  }

  async exchange(ctx: GrantContext): Promise<void> {
    const { subject_token: subjectToken, subject_token_type: type } = ctx.oidc.params;
    if (!subjectToken) throw new this.#errors.InvalidRequest("subject_token is missing");
    if (type === ID_TOKEN_TYPE) ctx.body = await this.#identityAssertion(ctx, subjectToken);
    else if (type === ACCESS_TOKEN_TYPE) ctx.body = await this.#downstreamToken(ctx, subjectToken);
    else
      throw new this.#errors.InvalidRequest(
        `subject_token_type must be ${ID_TOKEN_TYPE} or ${ACCESS_TOKEN_TYPE}`,
      );
  }

  async bearer(ctx: GrantContext): Promise<void> {
    const { assertion } = ctx.oidc.params;
    if (!assertion) throw new this.#errors.InvalidRequest("assertion is missing");
    const resource = this.#resource(ctx);
    const clientId = ctx.oidc.client.clientId;
    let subject: string;
    let allowed = splitScope(ctx.oidc.client.scope);
    if (headerTyp(assertion) === ID_JAG_TYP) {
      const grant = await this.#verify(() =>
        this.#settings.minter.verifyOwn(assertion, ID_JAG_TYP, this.#settings.issuer),
      );
      if (grant.client_id !== clientId)
        throw new this.#errors.InvalidGrant("the ID-JAG names another client");
      if (grant.resource !== resource)
        throw new this.#errors.InvalidGrant("the ID-JAG is for another resource");
      if (typeof grant.scope === "string")
        allowed = allowed.filter((scope) => splitScope(grant.scope).includes(scope));
      subject = grant.sub as string;
    } else {
      subject = (await this.#workloadIdentity(assertion)).sub as string;
    }
    const scope = this.#scope(ctx.oidc.params.scope, allowed);
    const ttlSec = this.#settings.accessTokenTtlSec;
    const accessToken = await this.#settings.minter.accessToken({
      subject,
      clientId,
      audience: resource,
      scope,
      ttlSec,
    });
    ctx.body = {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: ttlSec,
      ...(scope ? { scope } : {}),
    };
  }

  /** SEP-990: the user's ID token (from this server, for the asking client) for an ID-JAG naming its MCP client. */
  async #identityAssertion(ctx: GrantContext, idToken: string) {
    const { requested_token_type: requested, audience } = ctx.oidc.params;
    if (requested !== ID_JAG_TYPE) {
      throw new this.#errors.InvalidRequest(`an ID token is only exchanged for ${ID_JAG_TYPE}`);
    }
    if (audience !== this.#settings.issuer) {
      throw new this.#errors.InvalidTarget(
        `audience must be this authorization server, ${this.#settings.issuer}`,
      );
    }
    const idpClient = ctx.oidc.client.clientId;
    const mcpClient = this.#settings.idJagClients[idpClient];
    if (mcpClient === undefined) {
      throw new this.#errors.UnauthorizedClient(
        `${idpClient} has no client at the MCP authorization server to name`,
      );
    }
    const user = await this.#verify(() => this.#settings.minter.verifyOwn(idToken, undefined, idpClient));
    const resource = this.#resource(ctx);
    const scope = this.#scope(ctx.oidc.params.scope, this.#settings.scopes);
    const assertion = await this.#settings.minter.identityAssertion({
      subject: user.sub as string,
      clientId: mcpClient,
      audience,
      resource,
      scope,
      ttlSec: ID_JAG_TTL_SEC,
    });
    return {
      access_token: assertion,
      issued_token_type: ID_JAG_TYPE,
      token_type: "N_A",
      expires_in: ID_JAG_TTL_SEC,
      ...(scope ? { scope } : {}),
    };
  }

  /**
   * RFC 8693 delegation: an MCP server's caller's access token for one to a configured downstream, for
   * the same subject, with the MCP server as the actor, expiring no later than the caller's token.
   */
  async #downstreamToken(ctx: GrantContext, callerToken: string) {
    const { audience, resource } = ctx.oidc.params;
    const target = audience ?? resource;
    const downstream = this.#settings.downstreams.find((entry) => entry.audience === target);
    if (!downstream)
      throw new this.#errors.InvalidTarget(
        `no downstream ${String(target)} is configured for token exchange`,
      );
    const clientId = ctx.oidc.client.clientId;
    if (!downstream.clients.includes(clientId)) {
      throw new this.#errors.UnauthorizedClient(
        `${clientId} may not exchange tokens for ${downstream.audience}`,
      );
    }
    const caller = await this.#verify(() =>
      this.#settings.minter.verifyOwn(callerToken, "at+jwt", [...this.#settings.resources]),
    );
    const scope = this.#scope(ctx.oidc.params.scope, [...downstream.scopes]);
    const remaining = (caller.exp ?? 0) - Math.floor(Date.now() / 1000);
    const ttlSec = Math.max(1, Math.min(this.#settings.accessTokenTtlSec, remaining));
    const accessToken = await this.#settings.minter.accessToken({
      subject: caller.sub as string,
      clientId,
      audience: downstream.audience,
      scope,
      actor: clientId,
      ttlSec,
    });
    return {
      access_token: accessToken,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: "Bearer",
      expires_in: ttlSec,
      ...(scope ? { scope } : {}),
    };
  }

  async #workloadIdentity(assertion: string): Promise<JWTPayload> {
    let issuer: unknown;
    try {
      issuer = decodeJwt(assertion).iss;
    } catch {
      throw new this.#errors.InvalidGrant("the assertion is not a JWT");
    }
    const trusted = this.#settings.workloadIssuers.find((entry) => entry.issuer === issuer);
    if (!trusted)
      throw new this.#errors.InvalidGrant(`the assertion's issuer ${String(issuer)} is not trusted`);
    const keys = createLocalJWKSet({ keys: [...trusted.jwks] });
    return this.#verify(async () => {
      const { payload } = await jwtVerify(assertion, keys, {
        issuer: trusted.issuer,
        audience: this.#settings.issuer,
      });
      return payload;
    });
  }

  /** A token that fails verification is an invalid grant, whatever jose says about why. */
  async #verify(check: () => Promise<JWTPayload>): Promise<JWTPayload> {
    let payload: JWTPayload;
    try {
      payload = await check();
    } catch (error) {
      throw new this.#errors.InvalidGrant(
        `the presented token is not valid here (${(error as Error).message})`,
      );
    }
    if (typeof payload.sub !== "string")
      throw new this.#errors.InvalidGrant("the presented token has no subject");
    return payload;
  }

  #resource(ctx: GrantContext): string {
    const { resource } = ctx.oidc.params;
    if (typeof resource !== "string" || !this.#settings.resources.has(resource)) {
      throw new this.#errors.InvalidTarget(
        `resource must be one of this server's MCP resources, not ${String(resource)}`,
      );
    }
    return resource;
  }

  /** The scopes asked for, all of which must be allowed; all the allowed ones when none is asked for. */
  #scope(requested: string | undefined, allowed: readonly string[]): string | undefined {
    if (requested === undefined) return allowed.join(" ") || undefined;
    const refused = splitScope(requested).filter((scope) => !allowed.includes(scope));
    if (refused.length > 0)
      throw new this.#errors.InvalidScope("scope not allowed for this grant", refused.join(" "));
    return requested || undefined;
  }
}

function splitScope(scope: unknown): string[] {
  return typeof scope === "string" ? scope.split(" ").filter(Boolean) : [];
}

function headerTyp(token: string): unknown {
  try {
    return decodeProtectedHeader(token).typ;
  } catch {
    return undefined;
  }
}
