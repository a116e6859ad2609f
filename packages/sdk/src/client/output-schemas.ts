import { type OutputUnit, type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema";
import type { CallToolResult, Tool } from "../protocol/schemas/tools.js";
import { StructuredContentError } from "./errors.js";

/** The dialects a `$schema` may name; anything else is read as the protocol's default, 2020-12. */
const DRAFTS: Record<string, SchemaDraft> = {
  "http://json-schema.org/draft-04/schema": "4",
  "http://json-schema.org/draft-07/schema": "7",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
};

/** Enough of the validator's findings to act on, without quoting a large value back. */
const MAX_ISSUES = 5;

function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const named = typeof schema.$schema === "string" ? schema.$schema.replace(/#$/, "") : undefined;
  return (named && DRAFTS[named]) || "2020-12";
}

/** Keywords that fail only because a schema inside them failed, which is reported on its own. */
const ENCLOSING = new Set(["properties", "patternProperties", "items", "prefixItems", "allOf", "$ref"]);

function compiled(schema: Record<string, unknown>): Validator | Error {
  try {
    return new Validator(schema as Schema, draftOf(schema), false);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function violationsOf(errors: readonly OutputUnit[]): string[] {
  const leaves = errors.filter((unit) => !ENCLOSING.has(unit.keyword));
  return (leaves.length > 0 ? leaves : errors)
    .slice(0, MAX_ISSUES)
    .map((unit) => `${unit.instanceLocation.replace(/^#/, "") || "/"}: ${unit.error.replace(/\.$/, "")}`);
}

/**
 * What tools/list says each tool's structuredContent is, compiled once per listing. The protocol asks
 * servers to conform and clients to check, so a result that does not is refused before a caller can
 * act on data of the wrong shape. Only tools this client has listed are checked.
 */
export class OutputSchemaRegistry {
  /** A validator per tool, or why its schema could not be compiled. */
  readonly #validators = new Map<string, Validator | Error>();

  remember(tools: readonly Tool[]): void {
    for (const tool of tools) {
      if (tool.outputSchema === undefined) this.#validators.delete(tool.name);
      else this.#validators.set(tool.name, compiled(tool.outputSchema));
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
    let outcome: ReturnType<Validator["validate"]>;
    try {
      if (validator instanceof Error) throw validator;
      outcome = validator.validate(result.structuredContent);
    } catch (error) {
      // An unresolvable $ref (never fetched from the network) or a keyword the validator cannot run.
      const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0];
      throw new StructuredContentError(
        tool,
        result,
        `has an outputSchema this client cannot evaluate (${reason})`,
      );
    }
    if (outcome.valid) return;
    const violations = violationsOf(outcome.errors);
    throw new StructuredContentError(
      tool,
      result,
      `returned structuredContent that does not match its outputSchema (${violations.join("; ")})`,
      violations,
    );
  }
}
