import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import ajvFormats from "ajv-formats";
import { isCarrierMethod } from "../protocol/carriers.js";
import { isCacheable } from "../protocol/methods.js";

/**
 * Validation of what a Roundtrip server puts on the wire, against the official MCP 2026-07-28 JSON
 * Schema (draft 2020-12). The schema is compiled once per test worker; every assertion throws a readable
 * error naming the `$defs` type and the failing paths.
 *
 * The schema and the official wire examples are read from this package's `test-fixtures/mcp-2026-07-28`:
 * copies stripped of their prose, which validation never reads (see the README there).
 *
 * The schema alone is lenient where the protocol is strict (`resultType` is a plain string, so
 * `CallToolResultResponse.result` = `InputRequiredResult | CallToolResult` accepts anything with a
 * `resultType`). The assertions therefore discriminate on `resultType` first and add the prose rules
 * the schema cannot express (see `assertResultResponse`).
 */

type Json = Record<string, unknown>;

// Resolved from this module rather than the working directory, so any test runner location works.
const FIXTURES_DIR = fileURLToPath(new URL("../../test-fixtures/mcp-2026-07-28", import.meta.url));
export const SCHEMA_PATH = join(FIXTURES_DIR, "schema.json");
export const EXAMPLES_DIR = join(FIXTURES_DIR, "examples");

const SCHEMA_ID = "mcp-2026-07-28";

/** The tasks extension's schema (`test-fixtures/ext-tasks`), for what a server sends for that extension. */
const TASKS_SCHEMA_PATH = fileURLToPath(
  new URL("../../test-fixtures/ext-tasks/schema.json", import.meta.url),
);
const TASKS_SCHEMA_ID = "ext-tasks";

/** The result type of each of the tasks extension's methods, in its schema. */
const TASK_RESULT_TYPE: Readonly<Record<string, string>> = {
  "tasks/get": "GetTaskResult",
  "tasks/update": "UpdateTaskResult",
  "tasks/cancel": "CancelTaskResult",
};

interface Compiled {
  ajv: Ajv2020;
  defs: ReadonlySet<string>;
  /** Each client request's method and the name of its `$defs` type, less "Request" (`tools/list`: `ListTools`). */
  clientRequests: ReadonlyMap<string, string>;
  validators: Map<string, ValidateFunction>;
}

let compiled: Compiled | undefined;

function load(): Compiled {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as { $defs: Json };
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  ajvFormats.default(ajv);
  ajv.addSchema(schema, SCHEMA_ID);
  ajv.addSchema(JSON.parse(readFileSync(TASKS_SCHEMA_PATH, "utf8")) as Json, TASKS_SCHEMA_ID);
  compiled = {
    ajv,
    defs: new Set(Object.keys(schema.$defs)),
    clientRequests: clientRequestTypes(schema.$defs),
    validators: new Map(),
  };
  return compiled;
}

/** The `ClientRequest` union, read as method to type name: the official schema's list of client requests. */
function clientRequestTypes(defs: Json): Map<string, string> {
  const union = defs.ClientRequest as { anyOf: { $ref: string }[] };
  const types = new Map<string, string>();
  for (const { $ref } of union.anyOf) {
    const name = $ref.slice("#/$defs/".length);
    const method = (defs[name] as { properties: { method: { const: string } } }).properties.method.const;
    types.set(method, name.replace(/Request$/, ""));
  }
  return types;
}

/** Each client request of 2026-07-28 the official schema names, and its `$defs` type name less "Request". */
export function schemaClientRequests(): ReadonlyMap<string, string> {
  return load().clientRequests;
}

function validatorFor(def: string): ValidateFunction {
  const state = load();
  const cached = state.validators.get(def);
  if (cached) return cached;
  if (!state.defs.has(def)) throw new Error(`the 2026-07-28 schema has no $defs type "${def}"`);
  const validate = state.ajv.getSchema(`${SCHEMA_ID}#/$defs/${def}`);
  if (!validate) throw new Error(`could not compile $defs type "${def}"`);
  state.validators.set(def, validate);
  return validate;
}

/** Throws unless `value` is valid against the tasks extension's `$defs` type `def`. */
export function assertTasksSchema(def: string, value: unknown): void {
  const state = load();
  const key = `${TASKS_SCHEMA_ID}:${def}`;
  let validate = state.validators.get(key);
  if (!validate) {
    validate = state.ajv.getSchema(`${TASKS_SCHEMA_ID}#/$defs/${def}`);
    if (!validate) throw new Error(`the tasks extension's schema has no $defs type "${def}"`);
    state.validators.set(key, validate);
  }
  if (!validate(value)) fail(`not a valid tasks extension ${def}: ${describe(validate.errors)}`, value);
}

/** Every `$defs` type name of the official schema. */
export function schemaDefinitions(): ReadonlySet<string> {
  return load().defs;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}${paramsText(e)}`)
    .join("; ");
}

function paramsText(error: ErrorObject): string {
  const params = error.params as Json;
  if ("additionalProperty" in params) return ` (${String(params.additionalProperty)})`;
  if ("missingProperty" in params) return "";
  if ("allowedValue" in params) return ` (${JSON.stringify(params.allowedValue)})`;
  return "";
}

/** The validation errors of `value` against one `$defs` type; empty when valid. */
export function schemaErrors(def: string, value: unknown): string[] {
  const validate = validatorFor(def);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`);
}

export class WireSchemaError extends Error {
  override readonly name = "WireSchemaError";
}

function fail(message: string, value: unknown): never {
  throw new WireSchemaError(`${message}\n  message: ${JSON.stringify(value)}`);
}

/** Throws unless `value` is valid against the `$defs` type `def`. */
export function assertSchema(def: string, value: unknown): void {
  const validate = validatorFor(def);
  if (!validate(value)) fail(`not a valid ${def}: ${describe(validate.errors)}`, value);
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A successful response to `method`, validated against its `*ResultResponse` type, plus the rules the
 * schema cannot express:
 * - `resultType` is `"complete"`, or `"input_required"` on `tools/call`, `prompts/get` and
 *   `resources/read` only, or on `tools/call` `"task"`: a CreateTaskResult of the tasks extension,
 *   valid against its schema (`test-fixtures/ext-tasks`), as the results of its methods are;
 * - an `input_required` result is a valid `InputRequiredResult` with at least one of `inputRequests`
 *   and `requestState`, and carries no cache hints;
 * - a `complete` result of a carrier is valid against the complete type alone (the `anyOf` of the
 *   schema would also accept it as an InputRequiredResult).
 */
export function assertResultResponse(method: string, message: unknown): void {
  assertSchema("JSONRPCResultResponse", message);
  const result = (message as { result: Json }).result;
  const taskResult = TASK_RESULT_TYPE[method];
  if (taskResult) {
    assertTasksSchema(taskResult, result);
    return;
  }
  const type = schemaClientRequests().get(method);
  if (type) assertSchema(`${type}ResultResponse`, message);
  const { resultType } = result;
  if (resultType === "task") {
    if (method !== "tools/call") fail(`${method} answered with a task: only tools/call may`, message);
    assertTasksSchema("CreateTaskResult", result);
    for (const field of ["requestState", "inputRequests", "result", "error"]) {
      if (field in result) fail(`a CreateTaskResult carries no ${field}`, message);
    }
    return;
  }
  if (resultType === "input_required") {
    if (!isCarrierMethod(method)) {
      fail(
        `${method} answered with input_required: only tools/call, prompts/get, resources/read may`,
        message,
      );
    }
    assertSchema("InputRequiredResult", result);
    const hasRequests = isObject(result.inputRequests) && Object.keys(result.inputRequests).length > 0;
    if (!hasRequests && result.requestState === undefined) {
      fail("an InputRequiredResult carries neither inputRequests nor requestState", message);
    }
    if ("ttlMs" in result || "cacheScope" in result) {
      fail("an InputRequiredResult is not cacheable and carries no ttlMs/cacheScope", message);
    }
    return;
  }
  if (resultType !== "complete") fail(`unexpected resultType ${JSON.stringify(resultType)}`, message);
  if (type && isCarrierMethod(method)) assertSchema(`${type}Result`, result);
  if (isCacheable(method)) assertSchema("CacheableResult", result);
}

/** The typed error of the schema for each code the protocol defines. */
const ERROR_TYPE: Readonly<Record<number, { def: string; whole: boolean }>> = {
  [-32700]: { def: "ParseError", whole: false },
  [-32600]: { def: "InvalidRequestError", whole: false },
  [-32601]: { def: "MethodNotFoundError", whole: false },
  [-32602]: { def: "InvalidParamsError", whole: false },
  [-32603]: { def: "InternalError", whole: false },
  [-32020]: { def: "HeaderMismatchError", whole: true },
  [-32021]: { def: "MissingRequiredClientCapabilityError", whole: true },
  [-32022]: { def: "UnsupportedProtocolVersionError", whole: true },
};

/**
 * An error response: a valid `JSONRPCErrorResponse` whose error is the schema's typed error for its
 * code. Codes in the reserved range (-32768..-32000) that the protocol does not define (-32002,
 * -32042, the legacy -32000..-32019 range, undefined -32020..-32099 codes) are refused.
 */
export function assertErrorResponse(message: unknown, expectedCode?: number): void {
  assertSchema("JSONRPCErrorResponse", message);
  const error = (message as { error: { code: number } }).error;
  if (expectedCode !== undefined && error.code !== expectedCode) {
    fail(`expected error code ${expectedCode}, got ${error.code}`, message);
  }
  const typed = ERROR_TYPE[error.code];
  if (typed) {
    assertSchema(typed.def, typed.whole ? message : error);
  } else if (error.code >= -32768 && error.code <= -32000) {
    fail(`error code ${error.code} is reserved and not defined by 2026-07-28`, message);
  }
}

/** The notification type of each server-to-client notification method. */
const NOTIFICATION_TYPE: Readonly<Record<string, string>> = {
  "notifications/cancelled": "CancelledNotification",
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification",
  "notifications/resources/list_changed": "ResourceListChangedNotification",
  "notifications/resources/updated": "ResourceUpdatedNotification",
  "notifications/prompts/list_changed": "PromptListChangedNotification",
  "notifications/tools/list_changed": "ToolListChangedNotification",
  "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
};

/** A notification a server may send: one of `ServerNotification`, checked against its own type. */
export function assertServerNotification(message: unknown): void {
  assertSchema("JSONRPCNotification", message);
  const method = (message as { method: string }).method;
  if (method === "notifications/tasks") {
    assertTasksSchema("TaskStatusNotification", message);
    return;
  }
  const def = NOTIFICATION_TYPE[method];
  if (!def) fail(`${method} is not a server notification of 2026-07-28`, message);
  assertSchema(def, message);
  assertSchema("ServerNotification", message);
}

/**
 * Any message a server emits, given the method of the request it belongs to (undefined when the
 * request could not be read). Servers never send requests in 2026-07-28.
 */
export function assertServerMessage(message: unknown, method: string | undefined): void {
  if (!isObject(message)) fail("a server message must be a JSON object", message);
  if ("error" in message) {
    assertErrorResponse(message);
  } else if ("result" in message) {
    if (method === undefined) fail("a result answers no readable request", message);
    assertResultResponse(method, message);
  } else if ("method" in message) {
    if ("id" in message) fail("a 2026-07-28 server never sends JSON-RPC requests", message);
    assertServerNotification(message);
  } else {
    fail("neither a response nor a notification", message);
  }
}

/** A request as a correct client sends it: one of `ClientRequest` (used to keep tests honest). */
export function assertClientRequest(message: unknown): void {
  assertSchema("JSONRPCRequest", message);
  assertSchema("ClientRequest", message);
}

export interface SchemaExample {
  def: string;
  file: string;
  value: unknown;
}

/** The official wire examples, named by the `$defs` type each one illustrates. */
export function schemaExamples(): SchemaExample[] {
  const examples: SchemaExample[] = [];
  for (const def of readdirSync(EXAMPLES_DIR).sort()) {
    for (const file of readdirSync(join(EXAMPLES_DIR, def)).sort()) {
      const value: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, def, file), "utf8"));
      examples.push({ def, file, value });
    }
  }
  return examples;
}
