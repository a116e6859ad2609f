/**
 * How a once-round that did not run reaches the client: what went wrong inside OnceRounds, and the
 * JSON-RPC error each becomes, with its log line. A client tells the -32603s apart by `data.reason`
 * where it can act on them: retry later (`round_in_progress`, with `retryAfter` in seconds), or check
 * the effect by other means (`round_outcome_unknown`). None uses a code from the spec's reserved range.
 */
import { ErrorCode, McpError } from "../../protocol/errors.js";
import { describeError, type Logger } from "../../protocol/logger.js";
import { type OnceRecord, OnceStoreUnconfirmedError } from "../fleet/once-store.js";
import { invalidRequestStateError } from "../request-state-boundary.js";

/** A round that is not the client's to run: the frozen invalid-requestState error, the reason logged. */
export class Refused extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/** A round whose lease is live: its holder is running it. */
export class InProgress extends Error {
  /** Whole seconds, at least 1: when the lease would lapse if its holder stopped now. */
  readonly retryAfter: number;

  constructor(retryAfter: number) {
    super("once: round in progress");
    this.retryAfter = Math.max(1, retryAfter);
  }
}

/** A round whose handler started and whose holder stopped before it recorded an outcome. */
export class OutcomeUnknown extends Error {
  readonly record: Extract<OnceRecord, { status: "orphaned" }>;

  constructor(record: Extract<OnceRecord, { status: "orphaned" }>) {
    super("once: round orphaned");
    this.record = record;
  }
}

/** The store did not answer, or did not confirm a write: the handler was not run. */
export class StoreDown extends Error {
  readonly operation: string;
  override readonly cause: unknown;

  constructor(operation: string, cause: unknown) {
    super(operation);
    this.operation = operation;
    this.cause = cause;
  }
}

/** The error the client gets for `error`, logged; anything else (a handler's own error) unchanged. */
export function wireError(error: unknown, method: string, target: string, logger: Logger): unknown {
  if (error instanceof Refused) {
    logger.warn(
      { method, target, reason: error.reason },
      `requestState rejected on ${method}: ${error.reason}`,
    );
    return invalidRequestStateError();
  }
  if (error instanceof InProgress) {
    return new McpError(
      ErrorCode.InternalError,
      `'${target}' is still running this round elsewhere (it runs at most once per round); retry after ${error.retryAfter} s with the same requestState and inputResponses to get its outcome`,
      { reason: "round_in_progress", retryAfter: error.retryAfter },
    );
  }
  if (error instanceof OutcomeUnknown) {
    const { holder, attempt } = error.record;
    logger.error(
      { method, target, holder, attempt },
      `once: '${target}' started a round on ${holder} that stopped before recording an outcome; the round will not run again`,
    );
    return new McpError(
      ErrorCode.InternalError,
      `'${target}' started this round but the server running it stopped before recording an outcome, so whether its effect happened is unknown; it will not be run again for this round: check the effect (for example whether what it creates exists) before starting a new call`,
      { reason: "round_outcome_unknown" },
    );
  }
  if (!(error instanceof StoreDown)) return error;
  const fields = { method, target, operation: error.operation, ...describeError(error.cause) };
  if (error.cause instanceof OnceStoreUnconfirmedError) {
    logger.error(fields, `once-store did not confirm a write: '${target}' was not run`);
    return new McpError(
      ErrorCode.InternalError,
      `The once-store did not confirm the round as durable (${error.cause.message}), so '${target}' was not run; retry once the store's replicas catch up`,
    );
  }
  logger.error(fields, `once-store unavailable: '${target}' was not run`);
  return new McpError(
    ErrorCode.InternalError,
    `The once-store is unavailable, so '${target}' (which runs at most once per round) was not run; check the once-store (McpServer's once.store, e.g. its Redis connection) and retry`,
  );
}
