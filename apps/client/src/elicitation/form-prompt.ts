import { checkbox, confirm, input, select } from "@inquirer/prompts";
import type { ElicitRequestFormParams, ElicitResult } from "@roundtrip/sdk";
import { promptContext } from "../prompt-context.js";
import type { Terminal } from "../terminal.js";
import { type Asker, askerLabel } from "./asker.js";
import { displayValue, type FieldValue, type FormField, fieldProblem, formFields } from "./form-fields.js";

const UNSET = Symbol("unset");

/**
 * A form-mode elicitation in the terminal: who asks and what, one prompt per field (each validated as
 * typed), then a review where every answer can be changed before anything is sent. Decline and cancel
 * are offered before the first field and again at the review.
 */
export async function askForm(
  params: ElicitRequestFormParams,
  asker: Asker,
  terminal: Terminal,
): Promise<ElicitResult> {
  const context = promptContext(terminal);
  const fields = formFields(params.requestedSchema);
  terminal.notice("");
  terminal.notice(`${terminal.strong(askerLabel(asker))} asks: ${params.message}`);
  const start = await select(
    {
      message: "Answer this form?",
      choices: [
        { name: "Fill in the form", value: "fill" as const },
        { name: "Decline (say no to the request)", value: "decline" as const },
        { name: "Cancel (dismiss it without answering)", value: "cancel" as const },
      ],
    },
    context,
  );
  if (start !== "fill") return { action: start };

  const values = new Map<string, FieldValue>();
  for (const field of fields)
    setValue(values, field, await askField(field, values.get(field.name), terminal));

  while (true) {
    terminal.notice(`Review your answers for ${askerLabel(asker)}:`);
    for (const field of fields) {
      terminal.notice(`  ${field.label}: ${displayValue(field, values.get(field.name))}`);
    }
    const next = await select(
      {
        message: "Send these answers?",
        choices: [
          { name: "Send", value: "send" as const },
          ...(fields.length > 0 ? [{ name: "Edit an answer", value: "edit" as const }] : []),
          { name: "Decline", value: "decline" as const },
          { name: "Cancel", value: "cancel" as const },
        ],
      },
      context,
    );
    if (next === "decline" || next === "cancel") return { action: next };
    if (next === "send") return { action: "accept", content: Object.fromEntries(values) };
    const name = await select(
      {
        message: "Which answer?",
        choices: fields.map((field) => ({
          name: `${field.label}: ${displayValue(field, values.get(field.name))}`,
          value: field.name,
        })),
      },
      context,
    );
    const field = fields.find((f) => f.name === name);
    if (field) setValue(values, field, await askField(field, values.get(field.name), terminal));
  }
}

function setValue(values: Map<string, FieldValue>, field: FormField, value: FieldValue | typeof UNSET): void {
  if (value === UNSET) values.delete(field.name);
  else values.set(field.name, value);
}

function messageOf(field: FormField): string {
  const hints: string[] = [];
  if (field.kind === "string" && field.format) hints.push(field.format);
  if (
    (field.kind === "number" || field.kind === "integer") &&
    (field.minimum ?? field.maximum) !== undefined
  ) {
    hints.push(`${field.minimum ?? "…"} to ${field.maximum ?? "…"}`);
  }
  if (!field.required) hints.push("optional");
  const description = field.description && field.description !== field.label ? ` (${field.description})` : "";
  return `${field.label}${description}${hints.length ? ` [${hints.join(", ")}]` : ""}`;
}

async function askField(
  field: FormField,
  current: FieldValue | undefined,
  terminal: Terminal,
): Promise<FieldValue | typeof UNSET> {
  const context = promptContext(terminal);
  const message = messageOf(field);
  const check = (value: FieldValue) => fieldProblem(field, value) ?? true;
  switch (field.kind) {
    case "string": {
      const initial = (current as string | undefined) ?? field.default;
      const text = await input(
        {
          message,
          ...(initial !== undefined ? { default: initial } : {}),
          validate: (value) => (value === "" && !field.required ? true : check(value)),
        },
        context,
      );
      return text === "" && !field.required ? UNSET : text;
    }
    case "number":
    case "integer": {
      const initial = (current as number | undefined) ?? field.default;
      const text = await input(
        {
          message,
          ...(initial !== undefined ? { default: String(initial) } : {}),
          validate: (value) => {
            if (value.trim() === "") return field.required ? "a value is required" : true;
            return check(Number(value.trim()));
          },
        },
        context,
      );
      return text.trim() === "" ? UNSET : Number(text.trim());
    }
    case "boolean": {
      const initial = (current as boolean | undefined) ?? field.default;
      if (field.required || initial !== undefined) {
        return confirm({ message, default: initial ?? false }, context);
      }
      const choice = await select<boolean | typeof UNSET>(
        {
          message,
          choices: [
            { name: "Yes", value: true },
            { name: "No", value: false },
            { name: "Leave unset", value: UNSET },
          ],
        },
        context,
      );
      return choice;
    }
    case "select": {
      const initial = (current as string | undefined) ?? field.default;
      const choice = await select<string | typeof UNSET>(
        {
          message,
          choices: [
            ...field.options.map((o) => ({ name: o.title, value: o.value as string | typeof UNSET })),
            ...(field.required ? [] : [{ name: "Leave unset", value: UNSET as string | typeof UNSET }]),
          ],
          ...(initial !== undefined ? { default: initial } : {}),
        },
        context,
      );
      return choice;
    }
    case "multiselect": {
      const initial = (current as string[] | undefined) ?? field.default ?? [];
      const chosen = await checkbox(
        {
          message: `${message} (space to choose, enter when done)`,
          choices: field.options.map((o) => ({
            name: o.title,
            value: o.value,
            checked: initial.includes(o.value),
          })),
          validate: (choices) => {
            const list = choices.map((c) => c.value);
            if (list.length === 0 && !field.required) return true;
            return check(list);
          },
        },
        context,
      );
      return chosen.length === 0 && !field.required ? UNSET : chosen;
    }
  }
}
