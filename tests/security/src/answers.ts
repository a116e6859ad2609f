/**
 * How the suite answers whatever the reference server asks, in either era: forms with their first
 * choice (true for a confirmation), sampling with a completion the test chose (a secret to look for
 * later), roots with one root. A URL elicitation is not answered: a person would have to open it.
 */
export interface AskedRequest {
  method: string;
  params?: Record<string, unknown>;
}

interface FormSchema {
  properties?: Record<string, { type?: string; enum?: unknown[] }>;
}

export function answerTo(request: AskedRequest, completion: string): Record<string, unknown> | undefined {
  switch (request.method) {
    case "elicitation/create": {
      if (request.params?.mode === "url") return undefined;
      const schema = (request.params?.requestedSchema ?? {}) as FormSchema;
      const content: Record<string, unknown> = {};
      for (const [field, property] of Object.entries(schema.properties ?? {})) {
        if (property.enum) content[field] = property.enum[0];
        else if (property.type === "boolean") content[field] = true;
      }
      return { action: "accept", content };
    }
    case "sampling/createMessage":
      return { role: "assistant", content: { type: "text", text: completion }, model: "security-suite" };
    case "roots/list":
      return { roots: [{ uri: "file:///home/alice/ledger", name: "ledger" }] };
    default:
      throw new Error(`the server asked something this suite cannot answer: ${request.method}`);
  }
}
