import type { ClientCapabilities } from "./schemas/capabilities.js";

/** JSON-RPC and MCP 2026-07-28 error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error that travels on the wire as a JSON-RPC error object. Anything else thrown by a handler is
 * reported as a bare -32603 so that internals never reach the client.
 */
export class McpError extends Error {
  override readonly name = "McpError";
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static fromError(error: JsonRpcErrorObject): McpError {
    return new McpError(error.code, error.message, error.data);
  }

  static parseError(detail = "Parse error"): McpError {
    return new McpError(ErrorCode.ParseError, detail);
  }

  static invalidRequest(message: string): McpError {
    return new McpError(ErrorCode.InvalidRequest, message);
  }

  static methodNotFound(method: string): McpError {
    return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }

  static invalidParams(message: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, message, data);
  }

  static internal(): McpError {
    return new McpError(ErrorCode.InternalError, "Internal error");
  }

  static headerMismatch(message: string): McpError {
    return new McpError(ErrorCode.HeaderMismatch, message);
  }

  static missingCapability(required: ClientCapabilities): McpError {
    // An extension is named by its id: "the extensions capability" would not say which to declare.
    const names = Object.entries(required)
      .flatMap(([name, value]) =>
        name === "extensions" && typeof value === "object" && value !== null
          ? Object.keys(value).map((id) => `${id} extension`)
          : [name],
      )
      .join(" and ");
    return new McpError(
      ErrorCode.MissingRequiredClientCapability,
      `Server requires the ${names} capability for this request`,
      { requiredCapabilities: required },
    );
  }

  static unsupportedVersion(requested: string, supported: readonly string[]): McpError {
    return new McpError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
      supported: [...supported],
      requested,
    });
  }
}
