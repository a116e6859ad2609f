import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type * as z from "zod";
import { SCHEMA_PATH, schemaClientRequests } from "../test-support/wire-schema.js";
import { CARRIER_METHODS, carrierTarget, isCarrierMethod } from "./carriers.js";
import {
  CLIENT_REQUESTS,
  type ClientRequestFacts,
  isCacheable,
  isPaginated,
  methodFacts,
  methodsWhere,
  SERVER_REQUESTS,
} from "./methods.js";
import { isRepeatableOnSession, LEGACY_CLIENT_REQUESTS, LegacyMethod } from "./schemas/legacy.js";
import { SKILLS_METHODS } from "./skills.js";
import { META } from "./versions.js";

interface Def {
  $ref?: string;
  anyOf?: Def[];
  properties?: Record<string, Def>;
  required?: string[];
  const?: string;
  type?: string;
}

const defs = (JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as { $defs: Record<string, Def> }).$defs;
/** The rows the official schema states: every one but the skills extension's. */
const rows = Object.entries<ClientRequestFacts>(CLIENT_REQUESTS).filter(
  ([method]) => !SKILLS_METHODS.includes(method),
);

function def(ref: string | undefined): Def {
  const name = ref?.replace("#/$defs/", "");
  const found = name === undefined ? undefined : defs[name];
  if (!found) throw new Error(`the official schema has no $defs type ${String(ref)}`);
  return found;
}

/** The official type of a client request, less "Request": `ListTools` for tools/list. */
function officialType(method: string): string {
  const type = schemaClientRequests().get(method);
  if (type === undefined) throw new Error(`the official schema has no client request ${method}`);
  return type;
}

function officialParams(method: string): Def {
  return def(def(`#/$defs/${officialType(method)}Request`).properties?.params?.$ref);
}

function officialResult(method: string): Def {
  return def(`#/$defs/${officialType(method)}Result`);
}

function shapeOf(schema: z.ZodType): Record<string, z.ZodType> {
  return (schema as z.ZodObject).shape;
}

describe("the method table", () => {
  it("has a row for every client request the official schema names, and no other", () => {
    expect(rows.map(([method]) => method).sort()).toEqual([...schemaClientRequests().keys()].sort());
    expect(
      Object.keys(CLIENT_REQUESTS)
        .filter((method) => SKILLS_METHODS.includes(method))
        .sort(),
    ).toEqual([...SKILLS_METHODS].sort());
  });

  it("has a server-to-client row for every input request the official schema names, and no other", () => {
    const official = (defs.InputRequest?.anyOf ?? []).map(({ $ref }) => def($ref).properties?.method?.const);
    expect(Object.keys(SERVER_REQUESTS).sort()).toEqual(official.sort());
  });

  it("takes every field the official params require, in each row's params schema", () => {
    for (const [method, facts] of rows) {
      const required = officialParams(method).required ?? [];
      expect(Object.keys(facts.params.shape), method).toEqual(expect.arrayContaining(required));
    }
  });

  it("marks paginated exactly the requests whose official params are PaginatedRequestParams", () => {
    for (const [method, facts] of rows) {
      const paginated = def(`#/$defs/${officialType(method)}Request`).properties?.params?.$ref;
      expect(facts.paginated, method).toBe(paginated === "#/$defs/PaginatedRequestParams");
      if (facts.paginated) expect(Object.keys(facts.params.shape), method).toContain("cursor");
      if (facts.paginated) expect(Object.keys(shapeOf(facts.result)), method).toContain("nextCursor");
    }
  });

  it("marks cacheable exactly the requests whose official result requires the cache fields, which their result schema reads", () => {
    for (const [method, facts] of rows) {
      const required = officialResult(method).required ?? [];
      const official = required.includes("ttlMs") && required.includes("cacheScope");
      expect(facts.cacheable, method).toBe(official);
      const shape = Object.keys(shapeOf(facts.result));
      expect(shape.includes("ttlMs") && shape.includes("cacheScope"), method).toBe(facts.cacheable);
    }
  });

  it("marks as carriers exactly the requests whose official result may be an InputRequiredResult", () => {
    for (const [method, facts] of rows) {
      const response = def(`#/$defs/${officialType(method)}ResultResponse`);
      const answers = (response.properties?.result?.anyOf ?? []).map(({ $ref }) => $ref);
      expect(facts.carrier !== null, method).toBe(answers.includes("#/$defs/InputRequiredResult"));
    }
  });

  it("names as each carrier's target a string field its params require, officially and in its schema", () => {
    for (const [method, facts] of rows) {
      if (facts.carrier === null) continue;
      const { target } = facts.carrier;
      const official = officialParams(method);
      expect(official.required, method).toContain(target);
      expect(official.properties?.[target]?.type, method).toBe("string");
      const meta = { [META.protocolVersion]: "2026-07-28", [META.clientCapabilities]: {} };
      expect(facts.params.safeParse({ _meta: meta }).success, method).toBe(false);
      expect(carrierTarget(method, { [target]: "the-target" })).toBe("the-target");
    }
  });

  it("names only capabilities the official ServerCapabilities has, and a handler exactly where it names one", () => {
    const official = Object.keys(defs.ServerCapabilities?.properties ?? {});
    for (const [method, facts] of rows) {
      if (facts.capability !== null) expect(official, method).toContain(facts.capability);
      expect(facts.handler === null, method).toBe(facts.capability === null);
    }
    const clientOfficial = Object.keys(defs.ClientCapabilities?.properties ?? {});
    for (const [method, facts] of Object.entries(SERVER_REQUESTS)) {
      expect(clientOfficial, method).toContain(facts.capability);
    }
  });

  it("names a change notification only for results a client may keep, each one the official schema has", () => {
    const official = Object.values(defs).map((type) => type.properties?.method?.const);
    for (const [method, facts] of rows) {
      if (facts.changedBy === null) continue;
      expect(facts.cacheable, method).toBe(true);
      expect(official, method).toContain(facts.changedBy);
    }
  });

  it("leaves to the legacy table only the requests 2026-07-28 removed, so no request has two rows", () => {
    for (const method of Object.keys(LEGACY_CLIENT_REQUESTS)) {
      expect(methodFacts(method), method).toBeUndefined();
      expect(schemaClientRequests().has(method), method).toBe(false);
    }
  });

  it("repeats on a reset session only requests that change nothing, of both eras", () => {
    expect(methodsWhere((facts) => facts.repeatableOnSession)).not.toContain("tools/call");
    // A session carries no 2026-07-28-only request at all.
    expect(isRepeatableOnSession("server/discover")).toBe(false);
    expect(isRepeatableOnSession("subscriptions/listen")).toBe(false);
    expect(isRepeatableOnSession("tools/list")).toBe(true);
    expect(isRepeatableOnSession(LegacyMethod.initialize)).toBe(true);
    expect(isRepeatableOnSession(LegacyMethod.ping)).toBe(true);
    expect(isRepeatableOnSession(LegacyMethod.subscribe)).toBe(false);
    expect(isRepeatableOnSession(LegacyMethod.initialized)).toBe(false);
    expect(isRepeatableOnSession("toString")).toBe(false);
  });

  it("answers its helpers from the rows, and nothing for a method it does not have", () => {
    expect(CARRIER_METHODS).toEqual(["tools/call", "prompts/get", "resources/read"]);
    expect(methodsWhere((facts) => facts.paginated).every(isPaginated)).toBe(true);
    expect(isCacheable("resources/read")).toBe(true);
    expect(isCacheable("tools/call")).toBe(false);
    for (const method of ["toString", "constructor", "initialize", "tools/unknown"]) {
      expect(methodFacts(method), method).toBeUndefined();
      expect(isCarrierMethod(method), method).toBe(false);
      expect(isPaginated(method), method).toBe(false);
      expect(isCacheable(method), method).toBe(false);
    }
  });
});
