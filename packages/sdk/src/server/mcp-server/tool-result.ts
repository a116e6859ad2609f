import { isRecord } from "../../protocol/is-record.js";
import { type ContentBlock, ContentBlockSchema } from "../../protocol/schemas/content.js";
import type { ResultObject } from "../middleware.js";
import type { CompiledSchema, Infer } from "./schema.js";

/** A complete tool result written out in full. */
export interface ToolResultBody {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  resultType?: "complete";
}

/** Structured output is a plain value of the output schema's type; it can never be an InputRequiredResult. */
type Structured<O> = [O] extends [undefined] ? never : Infer<O> & { resultType?: never };

/**
 * What a tool handler may return: text, one content block or several, a full result, nothing, or (with
 * an output schema) the structured value itself.
 */
export type ToolReturn<O> =
  | string
  | ContentBlock
  | ContentBlock[]
  | ToolResultBody
  | undefined
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler body that returns nothing is typed void
  | void
  | Structured<O>;

function text(value: string): ResultObject {
  return { content: [{ type: "text", text: value }] };
}

function checkStructured(tool: string, output: CompiledSchema | undefined, value: unknown): void {
  if (!output) return;
  const parsed = output.parse(value);
  if (!parsed.ok) {
    throw new Error(
      `Tool '${tool}' returned structured content that does not match its output schema (${parsed.problems.join("; ")})`,
    );
  }
}

/** Turns what a handler returned into a CallToolResult. */
export function toCallToolResult(
  tool: string,
  value: unknown,
  output: CompiledSchema | undefined,
): ResultObject {
  if (isRecord(value) && Array.isArray(value.content)) {
    if (value.isError !== true && value.structuredContent !== undefined) {
      checkStructured(tool, output, value.structuredContent);
    }
    return value;
  }
  if (output && value === undefined) {
    throw new Error(
      `Tool '${tool}' declares an output schema but returned nothing; return the structured value`,
    );
  }
  if (output) {
    checkStructured(tool, output, value);
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  }
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === "string") return text(value);
  if (Array.isArray(value) && value.every((block) => ContentBlockSchema.safeParse(block).success)) {
    return { content: value };
  }
  if (ContentBlockSchema.safeParse(value).success) return { content: [value] };
  return text(JSON.stringify(value));
}
