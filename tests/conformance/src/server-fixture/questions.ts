import { createMessage, type ElicitationSchema, elicitForm, type InputRequest } from "@roundtrip/sdk";
import type { ElicitRequest, PrimitiveSchemaDefinition } from "@roundtrip/sdk/protocol";

/** The questions the input-required tools and prompt ask, each built once and reused by name. */

function oneField(name: string, type: "string" | "boolean"): ElicitationSchema {
  const field: PrimitiveSchemaDefinition = type === "string" ? { type: "string" } : { type: "boolean" };
  return { type: "object", properties: { [name]: field }, required: [name] };
}

export const askName = (message = "What is your name?"): ElicitRequest =>
  elicitForm(message, oneField("name", "string"));

export const askConfirmation = (): ElicitRequest => elicitForm("Please confirm", oneField("ok", "boolean"));

export const askColour = (): ElicitRequest =>
  elicitForm("Step 2: What is your favorite color?", oneField("color", "string"));

export const askPromptContext = (): ElicitRequest =>
  elicitForm("What context should the prompt use?", oneField("context", "string"));

export const askModel = (question: string, maxTokens: number): InputRequest =>
  createMessage({ messages: [{ role: "user", content: { type: "text", text: question } }], maxTokens });
