import * as z from "zod";
import { methodFacts, SERVER_REQUESTS, type ServerRequestMethod } from "../methods.js";
import { ClientCapabilitiesSchema, ServerCapabilitiesSchema } from "./capabilities.js";
import { ImplementationSchema, LoggingLevelSchema } from "./common.js";

/**
 * The 2025-era (2025-11-25, 2025-06-18, 2025-03-26) wire facts that 2026-07-28 removed: a session
 * opened by `initialize`, capabilities that hold for the whole session, and the methods that only
 * make sense on one.
 */
export const LegacyMethod = {
  initialize: "initialize",
  initialized: "notifications/initialized",
  ping: "ping",
  setLevel: "logging/setLevel",
  subscribe: "resources/subscribe",
  unsubscribe: "resources/unsubscribe",
  rootsListChanged: "notifications/roots/list_changed",
  elicitationComplete: "notifications/elicitation/complete",
} as const;

export const InitializeParamsSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: ClientCapabilitiesSchema,
  clientInfo: ImplementationSchema,
});
export type InitializeParams = z.infer<typeof InitializeParamsSchema>;

export const InitializeResultSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: z.string().optional(),
});
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

export const SetLevelParamsSchema = z.looseObject({ level: LoggingLevelSchema });
export type SetLevelParams = z.infer<typeof SetLevelParamsSchema>;

export const SubscribeParamsSchema = z.looseObject({ uri: z.string() });
export type SubscribeParams = z.infer<typeof SubscribeParamsSchema>;

export const ElicitationCompleteParamsSchema = z.looseObject({ elicitationId: z.string() });
export type ElicitationCompleteParams = z.infer<typeof ElicitationCompleteParamsSchema>;

/**
 * Fields of a 2026-07-28 result that a 2025-era peer has no meaning for. A server strips them before
 * answering a legacy session; a client never needs them there.
 */
export const MODERN_ONLY_RESULT_FIELDS: readonly string[] = ["resultType", "ttlMs", "cacheScope"];

/**
 * What a 2025-era client must answer to each server-to-client request a dual-era server sends for an
 * input-required result: the answer becomes one `inputResponses` entry, so its shape is checked first.
 */
export const ClientAnswerSchemaByMethod: {
  readonly [M in ServerRequestMethod]: (typeof SERVER_REQUESTS)[M]["result"];
} = Object.freeze(
  Object.fromEntries(Object.entries(SERVER_REQUESTS).map(([method, facts]) => [method, facts.result])) as {
    [M in ServerRequestMethod]: (typeof SERVER_REQUESTS)[M]["result"];
  },
);

/**
 * Whether each 2025-era client request 2026-07-28 removed changes nothing on the server, so that a
 * session whose connection reset may send it again; the requests both eras share say it in the method
 * table.
 */
const LEGACY_REPEATABLE_ON_SESSION: Readonly<
  Record<Exclude<(typeof LegacyMethod)[keyof typeof LegacyMethod], `notifications/${string}`>, boolean>
> = {
  [LegacyMethod.initialize]: true,
  [LegacyMethod.ping]: true,
  [LegacyMethod.setLevel]: false,
  [LegacyMethod.subscribe]: false,
  [LegacyMethod.unsubscribe]: false,
};

/** Whether a request on a 2025-era session may go again after its connection reset. */
export function isRepeatableOnSession(method: string): boolean {
  if (Object.hasOwn(LEGACY_REPEATABLE_ON_SESSION, method)) {
    return LEGACY_REPEATABLE_ON_SESSION[method as keyof typeof LEGACY_REPEATABLE_ON_SESSION];
  }
  return methodFacts(method)?.repeatableOnSession === true;
}
