import { createMessage, type ElicitationSchema, elicitForm, inputRequired } from "@roundtrip/sdk";
import type { FixtureTool } from "./catalogue.js";
import { text } from "./catalogue.js";
import { samplingText } from "./input-responses.js";

/**
 * The tools the 2025-11-25 scenarios call to see a server ask its client. They are input-required
 * tools like every other that asks: a 2026-07-28 client answers their rounds itself, and a 2025-era
 * session receives each question as a real elicitation/create or sampling/createMessage request.
 */

function argument(args: Record<string, unknown> | undefined, name: string, fallback: string): string {
  const value = args?.[name];
  return typeof value === "string" ? value : fallback;
}

function elicitationOutcome(response: unknown): string | undefined {
  if (typeof response !== "object" || response === null) return undefined;
  const { action, content } = response as { action?: unknown; content?: unknown };
  return typeof action === "string"
    ? `action=${action}, content=${JSON.stringify(content ?? {})}`
    : undefined;
}

/** A tool that asks one form question under `answer` and reports what came back. */
function formTool(
  name: string,
  description: string,
  message: (args: Record<string, unknown> | undefined) => string,
  schema: ElicitationSchema,
  report: string,
): FixtureTool {
  return {
    definition: {
      name,
      description,
      inputSchema:
        name === "test_elicitation"
          ? { type: "object", properties: { message: { type: "string" } }, required: ["message"] }
          : { type: "object", properties: {} },
    },
    call: (_ctx, params) => {
      const outcome = elicitationOutcome(params.inputResponses?.answer);
      if (outcome !== undefined) return text(`${report}: ${outcome}`);
      return inputRequired({ inputRequests: { answer: elicitForm(message(params.arguments), schema) } });
    },
  };
}

const sampling: FixtureTool = {
  definition: {
    name: "test_sampling",
    description: "Asks the client's model to answer a prompt",
    inputSchema: { type: "object", properties: { prompt: { type: "string" } }, required: ["prompt"] },
  },
  call: (_ctx, params) => {
    const answer = samplingText(params, "completion");
    if (answer !== undefined) return text(`LLM response: ${answer}`);
    const prompt = argument(params.arguments, "prompt", "Say hello");
    return inputRequired({
      inputRequests: {
        completion: createMessage({
          messages: [{ role: "user", content: { type: "text", text: prompt } }],
          maxTokens: 100,
        }),
      },
    });
  },
};

const userDetails = formTool(
  "test_elicitation",
  "Asks the user for a username and an email address",
  (args) => argument(args, "message", "Please provide your information"),
  {
    type: "object",
    properties: {
      username: { type: "string", description: "User's response" },
      email: { type: "string", description: "User's email address" },
    },
    required: ["username", "email"],
  },
  "User response",
);

const withDefaults = formTool(
  "test_elicitation_sep1034_defaults",
  "Asks a form whose every field has a default (SEP-1034)",
  () => "Please review these details; every field has a default",
  {
    type: "object",
    properties: {
      name: { type: "string", description: "User name", default: "John Doe" },
      age: { type: "integer", description: "User age", default: 30 },
      score: { type: "number", description: "User score", default: 95.5 },
      status: {
        type: "string",
        description: "User status",
        enum: ["active", "inactive", "pending"],
        default: "active",
      },
      verified: { type: "boolean", description: "Verification status", default: true },
    },
  },
  "Elicitation completed",
);

const enumVariants = formTool(
  "test_elicitation_sep1330_enums",
  "Asks a form with each of the five enum shapes (SEP-1330)",
  () => "Please choose from each list",
  {
    type: "object",
    properties: {
      untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
      titledSingle: {
        type: "string",
        oneOf: [
          { const: "value1", title: "First Option" },
          { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" },
        ],
      },
      legacyEnum: {
        type: "string",
        enum: ["opt1", "opt2", "opt3"],
        enumNames: ["Option One", "Option Two", "Option Three"],
      },
      untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
      titledMulti: {
        type: "array",
        items: {
          anyOf: [
            { const: "value1", title: "First Choice" },
            { const: "value2", title: "Second Choice" },
            { const: "value3", title: "Third Choice" },
          ],
        },
      },
    },
  },
  "Elicitation completed",
);

export const askingTools: readonly FixtureTool[] = [sampling, userDetails, withDefaults, enumVariants];
