import type * as z from "zod";
import { isCacheable } from "../protocol/methods.js";
import { type InputRequiredResult, InputRequiredResultSchema } from "../protocol/schemas/input-required.js";
import { firstIssue } from "../protocol/zod-issues.js";
import { ProtocolViolationError } from "./errors.js";

function normalised(method: string, raw: Record<string, unknown>): Record<string, unknown> {
  // An absent resultType means complete: results from earlier servers have none.
  const result: Record<string, unknown> = { ...raw, resultType: raw.resultType ?? "complete" };
  if (isCacheable(method)) {
    const ttl = result.ttlMs;
    result.ttlMs = typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 ? Math.floor(ttl) : 0;
    if (result.cacheScope !== "public" && result.cacheScope !== "private") result.cacheScope = "private";
  }
  return result;
}

function parse<T>(method: string, schema: z.ZodType<T>, value: Record<string, unknown>): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ProtocolViolationError(method, firstIssue(parsed.error));
  return parsed.data;
}

function unknownType(method: string, resultType: unknown): ProtocolViolationError {
  return new ProtocolViolationError(
    method,
    `resultType ${JSON.stringify(resultType)} is not one this client understands ("complete" or "input_required"); the server may be using an extension this client does not declare`,
  );
}

/** A complete result of any method; input_required is only legal on the three carriers. */
export function readResult<T>(method: string, raw: Record<string, unknown>, schema: z.ZodType<T>): T {
  const result = normalised(method, raw);
  if (result.resultType !== "complete") {
    if (result.resultType === "input_required") {
      throw new ProtocolViolationError(
        method,
        "input_required is only allowed on tools/call, prompts/get and resources/read",
      );
    }
    throw unknownType(method, result.resultType);
  }
  return parse(method, schema, result);
}

/** The answer of tools/call, prompts/get or resources/read: complete, or a request for input. */
export function readCarrierResult<T>(
  method: string,
  raw: Record<string, unknown>,
  schema: z.ZodType<T>,
): T | InputRequiredResult {
  if (raw.resultType !== "input_required") return readResult(method, raw, schema);
  const result = parse(method, InputRequiredResultSchema, raw);
  const asks = result.inputRequests !== undefined && Object.keys(result.inputRequests).length > 0;
  if (!asks && result.requestState === undefined) {
    throw new ProtocolViolationError(
      method,
      "an InputRequiredResult needs inputRequests, requestState or both",
    );
  }
  return result;
}
