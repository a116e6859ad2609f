import { jsonSchemaValidator } from "../protocol/json-schema-validation.js";
import type { CallToolResult, Tool } from "../protocol/schemas/tools.js";
import { StructuredContentError } from "./errors.js";

/** Enough of the validator's findings to act on, without quoting a large value back. */
const MAX_ISSUES = 5;

type Check = (value: unknown) => string[];

/** The same validation a Roundtrip server gives raw input schemas: a remote $ref is never fetched. */
function compiled(tool: string, schema: Record<string, unknown>): Check | Error {
  try {
    return jsonSchemaValidator(schema, `tool '${tool}' output`, false);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * What tools/list says each tool's structuredContent is, compiled once per listing. The protocol asks
 * servers to conform and clients to check, so a result that does not is refused before a caller can
 * act on data of the wrong shape. Only tools this client has listed are checked.
 */
export class OutputSchemaRegistry {
  /** A validator per tool, or why its schema could not be compiled. */
  readonly #validators = new Map<string, Check | Error>();

  remember(tools: readonly Tool[]): void {
    for (const tool of tools) {
      if (tool.outputSchema === undefined) this.#validators.delete(tool.name);
      else this.#validators.set(tool.name, compiled(tool.name, tool.outputSchema));
    }
  }

  /** Throws StructuredContentError when a successful result breaks its tool's outputSchema. */
  check(tool: string, result: CallToolResult): void {
    const validator = this.#validators.get(tool);
    // A tool error explains itself in content: it owes no structured result.
    if (!validator || result.isError === true) return;
    if (result.structuredContent === undefined) {
      throw new StructuredContentError(
        tool,
        result,
        "declares an outputSchema but returned no structuredContent",
      );
    }
    if (validator instanceof Error) {
      // A $ref to another document (never fetched) or a dialect the validator does not know.
      const reason = validator.message.split("\n")[0];
      throw new StructuredContentError(
        tool,
        result,
        `has an outputSchema this client cannot evaluate (${reason})`,
      );
    }
    const violations = validator(result.structuredContent).slice(0, MAX_ISSUES);
    if (violations.length === 0) return;
    throw new StructuredContentError(
      tool,
      result,
      `returned structuredContent that does not match its outputSchema (${violations.join("; ")})`,
      violations,
    );
  }
}
