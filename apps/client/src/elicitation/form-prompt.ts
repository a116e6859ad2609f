import type { ElicitRequestFormParams, ElicitResult } from "@roundtrip/sdk/protocol";
import { askCheckbox, askConfirm, askInput, askSelect } from "../terminal/prompts.js";
import { safeBlock, safeInline, UNDER_LABEL } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";
import { type Asker, askerLabel } from "./asker.js";
import { displayValue, type FieldValue, type FormField, fieldProblem, formFields } from "./form-fields.js";

const UNSET = Symbol("unset");

/**
 * A form-mode elicitation in the terminal: who asks and what, one prompt per field (each validated as
 * typed), then a review where every answer can be changed before anything is sent. Decline and cancel
 * are offered before the first field and again at the review. A form that is one yes-or-no question
 * is asked as that question alone: its answer is what is sent.
 */
export async function askForm(
  params: ElicitRequestFormParams,
  asker: Asker,
  terminal: Terminal,
): Promise<ElicitResult> {
  const fields = formFields(params.requestedSchema);
  terminal.notice("");
  terminal.notice(`${terminal.strong(askerLabel(asker))} asks: ${safeBlock(params.message, UNDER_LABEL)}`);
  const only = fields.length === 1 ? fields[0] : undefined;
  if (only?.kind === "boolean") {
    const yes = await askConfirm(terminal, {
      message: messageOf(only),
      default: (only.default as boolean | undefined) ?? false,
    });
    return { action: "accept", content: { [only.name]: yes } };
  }
  const start = await askSelect(terminal, {
    message: "Answer this form?",
    choices: [
      { name: "Fill in the form", value: "fill" as const },
      { name: "Decline (say no to the request)", value: "decline" as const },
      { name: "Cancel (dismiss it without answering)", value: "cancel" as const },
    ],
  });
  if (start !== "fill") return { action: start };

  const values = new Map<string, FieldValue>();
  for (const field of fields)
    setValue(values, field, await askField(field, values.get(field.name), terminal));

  while (true) {
    terminal.notice(`Review your answers for ${askerLabel(asker)}:`);
    for (const field of fields) {
      terminal.notice(
        `  ${safeInline(field.label)}: ${safeInline(displayValue(field, values.get(field.name)))}`,
      );
    }
    const next = await askSelect(terminal, {
      message: "Send these answers?",
      choices: [
        { name: "Send", value: "send" as const },
        ...(fields.length > 0 ? [{ name: "Edit an answer", value: "edit" as const }] : []),
        { name: "Decline", value: "decline" as const },
        { name: "Cancel", value: "cancel" as const },
      ],
    });
    if (next === "decline" || next === "cancel") return { action: next };
    if (next === "send") return { action: "accept", content: Object.fromEntries(values) };
    const name = await askSelect(terminal, {
      message: "Which answer?",
      choices: fields.map((field) => ({
        name: `${field.label}: ${displayValue(field, values.get(field.name))}`,
        value: field.name,
      })),
    });
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
  const message = messageOf(field);
  const check = (value: FieldValue) => fieldProblem(field, value) ?? true;
  switch (field.kind) {
    case "string": {
      const initial = (current as string | undefined) ?? field.default;
      const text = await askInput(terminal, {
        message,
        ...(initial !== undefined ? { default: initial } : {}),
        validate: (value) => (value === "" && !field.required ? true : check(value)),
      });
      return text === "" && !field.required ? UNSET : text;
    }
    case "number":
    case "integer": {
      const initial = (current as number | undefined) ?? field.default;
      const text = await askInput(terminal, {
        message,
        ...(initial !== undefined ? { default: String(initial) } : {}),
        validate: (value) => {
          if (value.trim() === "") return field.required ? "a value is required" : true;
          return check(Number(value.trim()));
        },
      });
      return text.trim() === "" ? UNSET : Number(text.trim());
    }
    case "boolean": {
      const initial = (current as boolean | undefined) ?? field.default;
      if (field.required || initial !== undefined) {
        return askConfirm(terminal, { message, default: initial ?? false });
      }
      return askSelect<boolean | typeof UNSET>(terminal, {
        message,
        choices: [
          { name: "Yes", value: true },
          { name: "No", value: false },
          { name: "Leave unset", value: UNSET },
        ],
      });
    }
    case "select": {
      const initial = (current as string | undefined) ?? field.default;
      return askSelect<string | typeof UNSET>(terminal, {
        message,
        choices: [
          ...field.options.map((o) => ({ name: o.title, value: o.value as string | typeof UNSET })),
          ...(field.required ? [] : [{ name: "Leave unset", value: UNSET as string | typeof UNSET }]),
        ],
        ...(initial !== undefined ? { default: initial } : {}),
      });
    }
    case "multiselect": {
      const initial = (current as string[] | undefined) ?? field.default ?? [];
      const chosen = await askCheckbox(terminal, {
        message: `${message} (space to choose, enter when done)`,
        choices: field.options.map((o) => ({
          name: o.title,
          value: o.value,
          checked: initial.includes(o.value),
        })),
        validate: (list) => (list.length === 0 && !field.required ? true : check([...list])),
      });
      return chosen.length === 0 && !field.required ? UNSET : chosen;
    }
  }
}
