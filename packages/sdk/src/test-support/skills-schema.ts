import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";

/** The skills extension's result shapes, transcribed from its specification (see the fixture's README). */
const schema = JSON.parse(
  readFileSync(fileURLToPath(new URL("../../test-fixtures/ext-skills/schema.json", import.meta.url)), "utf8"),
) as { $defs: Record<string, unknown> };

const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addSchema(schema, "ext-skills");

/** Throws unless `value` is a valid `def` of the skills extension. */
export function assertSkillsSchema(def: string, value: unknown): void {
  const validate = ajv.getSchema(`ext-skills#/$defs/${def}`);
  if (!validate) throw new Error(`the skills fixture schema has no $defs type ${def}`);
  if (!validate(value)) {
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? ""}`);
    throw new Error(`not a valid ${def}: ${errors.join("; ")}\n  value: ${JSON.stringify(value)}`);
  }
}
