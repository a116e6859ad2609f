import { MODERN_ONLY_RESULT_FIELDS } from "../../protocol/schemas/legacy.js";
import { META } from "../../protocol/versions.js";

/**
 * A complete result as a 2025-era client reads it: without the fields 2026-07-28 added to results and
 * without the serverInfo `_meta` key (a legacy client learned the server at initialize).
 */
export function legacyResult(result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (!MODERN_ONLY_RESULT_FIELDS.includes(key)) out[key] = value;
  }
  const meta = out._meta as Record<string, unknown> | undefined;
  if (meta && META.serverInfo in meta) {
    const { [META.serverInfo]: _serverInfo, ...rest } = meta;
    if (Object.keys(rest).length > 0) out._meta = rest;
    else delete out._meta;
  }
  return out;
}
