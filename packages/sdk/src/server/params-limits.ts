import { McpError } from "../protocol/errors.js";

/** How deep and how large a request's `arguments` and `inputResponses` may be. */
export interface ParamsLimits {
  /** Nesting levels of objects and arrays, the field itself being level 1. Default 64. */
  maxDepth?: number;
  /** UTF-8 bytes of the field as JSON. Default 4 MiB. */
  maxBytes?: number;
}

export const DEFAULT_PARAMS_LIMITS: Required<ParamsLimits> = { maxDepth: 64, maxBytes: 4 * 1024 * 1024 };

/** The fields a peer fills freely and that digests, schemas and handlers walk recursively. */
const LIMITED_FIELDS = ["arguments", "inputResponses"] as const;

/** UTF-8 bytes of `value` as JSON: what it weighs on the wire and in a store. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

/**
 * Whether objects and arrays in `value` nest deeper than `maxDepth`, `value` being level 1. Walks with
 * an explicit stack: the check must not overflow on the very input it guards against.
 */
export function deeperThan(value: unknown, maxDepth: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.depth > maxDepth) return true;
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children) pending.push({ value: child, depth: next.depth + 1 });
  }
  return false;
}

/**
 * Refuses, before any middleware or handler runs, a request whose `arguments` or `inputResponses`
 * nest or weigh beyond the limits, with -32602 naming the limit. Depth is checked first, so measuring
 * the size never recurses deeper than the limit.
 */
export function checkParamsLimits(
  params: Record<string, unknown>,
  limits: ParamsLimits = {},
): McpError | undefined {
  const maxDepth = limits.maxDepth ?? DEFAULT_PARAMS_LIMITS.maxDepth;
  const maxBytes = limits.maxBytes ?? DEFAULT_PARAMS_LIMITS.maxBytes;
  for (const field of LIMITED_FIELDS) {
    const value = params[field];
    if (value === undefined || value === null) continue;
    if (deeperThan(value, maxDepth)) {
      return McpError.invalidParams(
        `Invalid params: ${field} nests deeper than this server's limit of ${maxDepth} levels (maxDepth)`,
      );
    }
    const bytes = jsonBytes(value);
    if (bytes > maxBytes) {
      return McpError.invalidParams(
        `Invalid params: ${field} is ${bytes} bytes, beyond this server's limit of ${maxBytes} bytes (maxBytes)`,
      );
    }
  }
  return undefined;
}
