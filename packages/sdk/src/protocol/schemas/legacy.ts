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

/** The 2025-era client requests 2026-07-28 removed: those only a session has. */
export type LegacyRequestMethod = Exclude<
  (typeof LegacyMethod)[keyof typeof LegacyMethod],
  `notifications/${string}`
>;

/**
 * The facts of each 2025-era client request 2026-07-28 removed; the requests both eras share say theirs
 * in the method table (`../methods.ts`).
 */
export const LEGACY_CLIENT_REQUESTS: Readonly<
  Record<LegacyRequestMethod, { readonly repeatableOnSession: boolean }>
> = {
  [LegacyMethod.initialize]: { repeatableOnSession: true },
  [LegacyMethod.ping]: { repeatableOnSession: true },
  [LegacyMethod.setLevel]: { repeatableOnSession: false },
  [LegacyMethod.subscribe]: { repeatableOnSession: false },
  [LegacyMethod.unsubscribe]: { repeatableOnSession: false },
};

/**
 * Whether a request on a 2025-era session may go again after its connection reset: only one that
 * changes nothing on the server, which may have acted on it once already.
 */
export function isRepeatableOnSession(method: string): boolean {
  if (Object.hasOwn(LEGACY_CLIENT_REQUESTS, method)) {
    return LEGACY_CLIENT_REQUESTS[method as LegacyRequestMethod].repeatableOnSession;
  }
  return methodFacts(method)?.repeatableOnSession === true;
}
