import { McpError } from "../../protocol/errors.js";
import type { ServerCapabilities } from "../../protocol/schemas/capabilities.js";
import {
  type InitializeParams,
  InitializeParamsSchema,
  type InitializeResult,
  LegacyMethod,
  SetLevelParamsSchema,
  SubscribeParamsSchema,
} from "../../protocol/schemas/legacy.js";
import { LATEST_LEGACY_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS } from "../../protocol/versions.js";
import { firstIssue } from "../../protocol/zod-issues.js";
import type { Server } from "../server.js";
import type { LegacySession } from "./session.js";
import { checkSessionFacts } from "./session-facts.js";

/** The version a session runs: the client's when this server speaks it, else the newest legacy one. */
export function negotiateVersion(requested: string): string {
  return LEGACY_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_LEGACY_PROTOCOL_VERSION;
}

export function readInitializeParams(params: Record<string, unknown> | undefined): InitializeParams {
  const parsed = InitializeParamsSchema.safeParse(params ?? {});
  if (!parsed.success) {
    throw McpError.invalidParams(
      `Invalid initialize params: ${firstIssue(parsed.error)}; send protocolVersion, capabilities and clientInfo`,
    );
  }
  return parsed.data;
}

export function initializeResult(server: Server, protocolVersion: string): InitializeResult {
  const result: InitializeResult = {
    protocolVersion,
    capabilities: server.capabilities as ServerCapabilities,
    serverInfo: server.info,
  };
  const instructions = server.instructions;
  if (instructions !== undefined) result.instructions = instructions;
  return result;
}

/**
 * The methods that exist only on a session (ping, logging/setLevel, resources/subscribe and
 * unsubscribe): answered from the session, or undefined for any other method.
 */
/** The methods a 2025-era session answers itself, never reaching dispatch. */
const SESSION_METHODS: ReadonlySet<string> = new Set([
  LegacyMethod.ping,
  LegacyMethod.setLevel,
  LegacyMethod.subscribe,
  LegacyMethod.unsubscribe,
]);

export function isSessionMethod(method: string): boolean {
  return SESSION_METHODS.has(method);
}

export function serveSessionMethod(
  server: Server,
  session: LegacySession,
  method: string,
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  switch (method) {
    case LegacyMethod.ping:
      return {};
    case LegacyMethod.setLevel: {
      if (!server.capabilities.logging) throw McpError.methodNotFound(method);
      const parsed = SetLevelParamsSchema.safeParse(params ?? {});
      if (!parsed.success) throw McpError.invalidParams(`Invalid params: ${firstIssue(parsed.error)}`);
      session.logLevel = parsed.data.level;
      return {};
    }
    case LegacyMethod.subscribe:
    case LegacyMethod.unsubscribe: {
      if (!server.capabilities.resources?.subscribe) throw McpError.methodNotFound(method);
      const parsed = SubscribeParamsSchema.safeParse(params ?? {});
      if (!parsed.success) throw McpError.invalidParams(`Invalid params: ${firstIssue(parsed.error)}`);
      const { uri } = parsed.data;
      if (method === LegacyMethod.unsubscribe) session.subscriptions.delete(uri);
      else if (!session.subscriptions.has(uri)) {
        const { clientCapabilities, clientInfo } = session;
        checkSessionFacts({ clientCapabilities, clientInfo, subscriptions: [...session.subscriptions, uri] });
        session.subscriptions.add(uri);
      }
      return {};
    }
    default:
      return undefined;
  }
}
