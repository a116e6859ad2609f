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
import { EXTENSION_REQUESTS, isExtensionRequestMethod } from "../../protocol/methods.js";
import type { RequestMeta } from "../../protocol/schemas/envelope.js";
import type { Tool } from "../../protocol/schemas/tools.js";
import { META } from "../../protocol/versions.js";
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
 * The request metadata headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) must mirror the body, so
 * intermediaries can route on them safely. Run once the envelope is read, before anything else.
 */
export function checkHeaderAgreement(
  headers: HeaderRecord,
  request: JsonRpcRequest,
  meta: RequestMeta,
): void {
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
  const routedBy = isCarrierMethod(request.method)
    ? carrierTargetField(request.method)
    : isExtensionRequestMethod(request.method)
      ? EXTENSION_REQUESTS[request.method].routedBy
      : undefined;
  if (routedBy !== undefined) {
    const name = requireHeader(headers, HEADER.name, "Mcp-Name");
    const expected = request.params?.[routedBy];
    if (name !== expected) {
      throw McpError.headerMismatch(
        `Header mismatch: Mcp-Name header value '${name}' does not match body value '${String(expected)}'`,
      );
    }
  }
}

/**
 * The `Mcp-Param-*` headers of a tools/call must mirror the arguments the called tool's `x-mcp-header`
 * annotations name. Run where dispatch has found the tool, so no handler runs to learn its definition.
 */
export function checkParamAgreement(
  headers: HeaderRecord,
  tool: Tool,
  args: Record<string, unknown> | undefined,
): void {
  const headerParams = headerParamsOfTool(tool);
  // A string names a broken annotation: clients drop such a tool, so no header mirrors its arguments.
  if (Array.isArray(headerParams) && headerParams.length > 0) checkParamHeaders(headerParams, args, headers);
}
