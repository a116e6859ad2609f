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

/**
 * A tools/list result as a 2025-era client reads it: without the tasks extension's
 * `execution.taskSupport`, which 2025-11-25's experimental tasks spell alike with another protocol
 * (an official v1 client refuses a plain call to a tool marked "required"); such a client's call runs
 * directly through the bridge instead.
 */
export function legacyToolList(result: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(result.tools)) return result;
  const tools = result.tools.map((tool: Record<string, unknown>) => {
    const execution = tool.execution as Record<string, unknown> | undefined;
    if (execution?.taskSupport === undefined) return tool;
    const { taskSupport: _extension, ...rest } = execution;
    const { execution: _execution, ...plain } = tool;
    return Object.keys(rest).length > 0 ? { ...plain, execution: rest } : plain;
  });
  return { ...result, tools };
}
