import { jsonSchemaValidator } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "../exit-codes.js";

/**
 * Arguments as typed after the tool or prompt name: one JSON object (`'{"name": "api"}'`), or pairs
 * `key=value` (a string) and `key:=json` (any JSON value, e.g. `count:=3` or `tags:='["a","b"]'`).
 * With a tool's input schema, `key=value` for a number, integer or boolean property is converted, so
 * `count=3` works too.
 */
export function parseArguments(
  words: readonly string[],
  schema?: ArgumentsSchema,
): Record<string, unknown> | undefined {
  if (words.length === 0) return undefined;
  if (words.length === 1 && words[0]?.trimStart().startsWith("{")) {
    let value: unknown;
    try {
      value = JSON.parse(words[0]);
    } catch (error) {
      throw new CliError(ExitCode.usage, `the arguments are not valid JSON: ${(error as Error).message}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new CliError(ExitCode.usage, "the JSON arguments must be an object");
    }
    return value as Record<string, unknown>;
  }
  const args: Record<string, unknown> = {};
  for (const word of words) {
    const json = word.indexOf(":=");
    const plain = word.indexOf("=");
    if (json > 0 && json < plain) {
      const key = word.slice(0, json);
      try {
        args[key] = JSON.parse(word.slice(json + 2));
      } catch {
        throw new CliError(
          ExitCode.usage,
          `${key}:= takes a JSON value, got ${word.slice(json + 2)}; quote strings or use ${key}=text`,
        );
      }
    } else if (plain > 0) {
      const key = word.slice(0, plain);
      args[key] = coerce(word.slice(plain + 1), schema?.properties?.[key]?.type);
    } else {
      throw new CliError(
        ExitCode.usage,
        `"${word}" is not an argument; write key=value, key:=json, or one JSON object`,
      );
    }
  }
  return args;
}

function coerce(value: string, type: unknown): unknown {
  if ((type === "number" || type === "integer") && value.trim() !== "" && Number.isFinite(Number(value))) {
    return Number(value);
  }
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** A tool's input schema, as far as the command line reads it. */
export interface ArgumentsSchema {
  properties?: Record<string, { type?: unknown }>;
  additionalProperties?: unknown;
}

/**
 * Refuses argument names the tool's schema does not declare, before anything is sent: a typo would
 * otherwise be dropped or refused by the server. A schema that allows other properties
 * (additionalProperties true or a schema) takes any name.
 */
export function checkArgumentNames(
  tool: string,
  args: Record<string, unknown> | undefined,
  schema: ArgumentsSchema | undefined,
): void {
  if (args === undefined || schema?.properties === undefined) return;
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return;
  const known = Object.keys(schema.properties);
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  throw new CliError(
    ExitCode.usage,
    `${tool} has no argument ${unknown.map((k) => `"${k}"`).join(", ")}; it takes ${known.length > 0 ? known.join(", ") : "none"} (see \`roundtrip tools --long\`); nothing was sent`,
  );
}

/**
 * Refuses argument values the tool's input schema refuses, before anything is sent, with the same
 * validator a Roundtrip server runs: the command line is what is wrong, so it exits 2 rather than
 * letting the tool answer with an error result. A schema this CLI cannot evaluate is left to the server.
 */
export function checkArgumentValues(
  tool: string,
  args: Record<string, unknown> | undefined,
  schema: Record<string, unknown> | undefined,
): void {
  if (schema === undefined) return;
  let problems: string[];
  try {
    problems = jsonSchemaValidator(schema, `tool '${tool}' input`, false)(args ?? {});
  } catch {
    return;
  }
  if (problems.length === 0) return;
  throw new CliError(
    ExitCode.usage,
    `${tool} refuses these arguments: ${problems.join("; ")} (see \`roundtrip tools --long\`); nothing was sent`,
  );
}
