import { carrierTargetField, isCarrierMethod } from "../../protocol/carriers.js";
import { McpError } from "../../protocol/errors.js";
import {
  checkParamHeaders,
  decodeHeaderValue,
  HEADER,
  type HeaderParam,
  headerParamsOf,
  headerText,
} from "../../protocol/http-headers.js";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import type { RequestMeta } from "../../protocol/schemas/envelope.js";
import type { Tool } from "../../protocol/schemas/tools.js";
import { META } from "../../protocol/versions.js";
import type { ToolLookup } from "../server.js";
import type { HeaderRecord } from "./request-head.js";

function requireHeader(headers: HeaderRecord, name: string, label: string): string {
  const raw = headerText(headers, name);
  if (raw === undefined)
    throw McpError.headerMismatch(`Header mismatch: required header ${label} is missing`);
  const value = decodeHeaderValue(raw);
  if (value === undefined)
    throw McpError.headerMismatch(`Header mismatch: ${label} header has invalid characters or encoding`);
  return value;
}

const NO_HEADER_PARAMS: readonly HeaderParam[] = [];
const headerParamsByTool = new WeakMap<Tool, readonly HeaderParam[] | string>();

/** A tool's `x-mcp-header` annotations, walked once per definition rather than once per call. */
function headerParamsOfTool(tool: Tool): readonly HeaderParam[] | string {
  let params = headerParamsByTool.get(tool);
  if (params === undefined) {
    params = headerParamsOf(tool);
    headerParamsByTool.set(tool, params);
  }
  return params;
}

/**
 * The request metadata headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) must mirror
 * the body, so intermediaries can route on them safely.
 */
export async function checkHeaderAgreement(
  headers: HeaderRecord,
  request: JsonRpcRequest,
  meta: RequestMeta,
  lookupTool: ToolLookup,
): Promise<void> {
  const version = requireHeader(headers, HEADER.protocolVersion, "MCP-Protocol-Version");
  if (version !== meta[META.protocolVersion]) {
    throw McpError.headerMismatch(
      `Header mismatch: MCP-Protocol-Version header value '${version}' does not match body value '${meta[META.protocolVersion]}'`,
    );
  }
  const method = requireHeader(headers, HEADER.method, "Mcp-Method");
  if (method !== request.method) {
    throw McpError.headerMismatch(
      `Header mismatch: Mcp-Method header value '${method}' does not match body value '${request.method}'`,
    );
  }
  const params = request.params ?? {};
  if (isCarrierMethod(request.method)) {
    const name = requireHeader(headers, HEADER.name, "Mcp-Name");
    const expected = params[carrierTargetField(request.method)];
    if (name !== expected) {
      throw McpError.headerMismatch(
        `Header mismatch: Mcp-Name header value '${name}' does not match body value '${String(expected)}'`,
      );
    }
  }
  if (request.method === "tools/call" && typeof params.name === "string") {
    const tool = await lookupTool(params.name);
    const headerParams = tool ? headerParamsOfTool(tool) : NO_HEADER_PARAMS;
    // A string names a broken annotation: clients drop such a tool, so no header mirrors its arguments.
    if (Array.isArray(headerParams) && headerParams.length > 0) {
      const args = params.arguments as Record<string, unknown> | undefined;
      checkParamHeaders(headerParams, args, headers);
    }
  }
}
