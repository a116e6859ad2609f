import { describe, expect, it } from "vitest";
import { WEATHER_TOOL } from "../test-support/fixture-server.js";
import { assertErrorResponse } from "../test-support/wire-schema.js";
import { McpError } from "./errors.js";
import {
  checkParamHeaders,
  decodeHeaderValue,
  encodeHeaderValue,
  formatParamValue,
  type HeaderParam,
  headerParamsOf,
  paramHeaders,
} from "./http-headers.js";
import { errorResponse } from "./jsonrpc.js";
import type { Tool } from "./schemas/tools.js";

const b64 = (text: string): string => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

function tool(properties: Record<string, unknown>): Pick<Tool, "inputSchema"> {
  return { inputSchema: { type: "object", properties } };
}

/** The -32020 a check throws, validated as the wire error it becomes. */
function mismatchOf(check: () => void): string {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    const wire = errorResponse(1, (error as McpError).toJSON());
    assertErrorResponse(wire, -32020);
    return wire.error.message;
  }
  throw new Error("expected a header mismatch");
}

describe("encodeHeaderValue / decodeHeaderValue", () => {
  it.each(["Oslo", "file:///notes/a.txt", "a b", "tools/call", "x=1;y=2", "2026-07-28"])(
    "sends safe ASCII %j as it is",
    (value) => {
      expect(encodeHeaderValue(value)).toBe(value);
      expect(decodeHeaderValue(value)).toBe(value);
    },
  );

  it.each([
    ["non-ASCII", "Zürich"],
    ["emoji", "weather ☀️"],
    ["a space in front", " Oslo"],
    ["a trailing space", "Oslo "],
    ["a tab", "a\tb"],
    ["a newline", "a\nb"],
    ["a control character", "a\u0001b"],
    ["a plain value that looks like the sentinel", "=?base64?SGk=?="],
    ["a value that only starts like the sentinel", "=?base64?not closed"],
  ])("encodes a value with %s in the base64 sentinel, and decodes it back", (_label, value) => {
    const encoded = encodeHeaderValue(value);
    expect(encoded).toBe(b64(value));
    expect(decodeHeaderValue(encoded)).toBe(value);
  });

  it("decodes an empty sentinel to the empty string", () => {
    expect(decodeHeaderValue("=?base64??=")).toBe("");
  });

  it("keeps the markers case-sensitive: an upper-case sentinel is a plain value", () => {
    expect(decodeHeaderValue("=?BASE64?SGk=?=")).toBe("=?BASE64?SGk=?=");
  });

  it.each([
    ["a non-ASCII character", "Zürich"],
    ["a tab", "a\tb"],
    ["a space in front", " x"],
    ["a trailing space", "x "],
    ["a DEL", "a\u007fb"],
    ["non-canonical base64 (missing padding)", "=?base64?SGk?="],
    ["non-canonical base64 (extra bits)", "=?base64?SGl=?="],
    ["base64 of bytes that are not UTF-8", "=?base64?/w==?="],
    ["base64 whose length is not a multiple of four", "=?base64?SGkxx?="],
  ])("refuses a header value with %s", (_label, raw) => {
    expect(decodeHeaderValue(raw)).toBeUndefined();
  });
});

describe("headerParamsOf", () => {
  it("finds string, integer, boolean and nested annotations, reachable through properties", () => {
    expect(headerParamsOf(WEATHER_TOOL)).toEqual([
      { header: "Region", path: ["region"], type: "string" },
      { header: "Days", path: ["days"], type: "integer" },
      { header: "Metric", path: ["metric"], type: "boolean" },
      { header: "Station", path: ["options", "station"], type: "string" },
    ]);
  });

  it.each([
    ["a number property", { n: { type: "number", "x-mcp-header": "N" } }, /string, integer or boolean/],
    ["an object property", { o: { type: "object", "x-mcp-header": "O" } }, /string, integer or boolean/],
    ["an empty name", { s: { type: "string", "x-mcp-header": "" } }, /HTTP token/],
    ["a name with a space", { s: { type: "string", "x-mcp-header": "My Name" } }, /HTTP token/],
    ["a name with a colon", { s: { type: "string", "x-mcp-header": "a:b" } }, /HTTP token/],
    ["a name that is not a string", { s: { type: "string", "x-mcp-header": 7 } }, /HTTP token/],
    [
      "a name used twice, whatever the case",
      { a: { type: "string", "x-mcp-header": "Region" }, b: { type: "string", "x-mcp-header": "region" } },
      /used twice/,
    ],
  ])("rejects a tool whose annotation is on %s", (_label, properties, message) => {
    const result = headerParamsOf(tool(properties));
    expect(typeof result).toBe("string");
    expect(result).toMatch(message);
  });

  it.each([
    ["items", { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }],
    ["prefixItems", { pair: { type: "array", prefixItems: [{ type: "string", "x-mcp-header": "First" }] } }],
    ["anyOf", { choice: { anyOf: [{ type: "string", "x-mcp-header": "Choice" }] } }],
    ["oneOf", { choice: { oneOf: [{ type: "string", "x-mcp-header": "Choice" }] } }],
    ["allOf", { both: { allOf: [{ type: "string", "x-mcp-header": "Both" }] } }],
    ["not", { never: { not: { type: "string", "x-mcp-header": "Never" } } }],
    ["if", { cond: { if: { type: "string", "x-mcp-header": "If" } } }],
    // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword here, never awaited
    ["then", { cond: { then: { type: "string", "x-mcp-header": "Then" } } }],
    ["else", { cond: { else: { type: "string", "x-mcp-header": "Else" } } }],
    [
      "additionalProperties",
      { map: { type: "object", additionalProperties: { type: "string", "x-mcp-header": "Any" } } },
    ],
    [
      "patternProperties",
      { map: { type: "object", patternProperties: { "^a": { type: "string", "x-mcp-header": "A" } } } },
    ],
    [
      "an object reached through items",
      {
        rows: {
          type: "array",
          items: { type: "object", properties: { id: { type: "string", "x-mcp-header": "Id" } } },
        },
      },
    ],
  ])("rejects a tool whose annotation sits under %s", (keyword, properties) => {
    const result = headerParamsOf(tool(properties));
    expect(result).toMatch(/not on a property reached through "properties" alone/);
    expect(result).toContain(keyword.split(" ").at(-1));
  });

  it("rejects an annotation behind a $ref, where it sits in $defs", () => {
    const schema = {
      type: "object" as const,
      properties: { ref: { $ref: "#/$defs/region" } },
      $defs: { region: { type: "string", "x-mcp-header": "Region" } },
    };
    expect(headerParamsOf({ inputSchema: schema })).toMatch(/at \/\$defs\/region is not on a property/);
  });

  it("rejects an annotation on the schema's root, which is no property", () => {
    expect(headerParamsOf({ inputSchema: { type: "object", "x-mcp-header": "Root" } })).toMatch(
      /at \/ is not/,
    );
  });

  it("reads an x-mcp-header key inside a default or an enum as data, not an annotation", () => {
    expect(
      headerParamsOf(
        tool({
          opts: { type: "object", default: { "x-mcp-header": "Data" }, enum: [{ "x-mcp-header": "E" }] },
        }),
      ),
    ).toEqual([]);
  });

  it("refuses a schema nested deeper than any real one instead of walking it", () => {
    let node: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 500; i++) node = { type: "object", properties: { n: node } };
    expect(headerParamsOf({ inputSchema: node as { type: "object" } })).toMatch(/nests deeper/);
  });
});

describe("formatParamValue / paramHeaders", () => {
  it.each<[unknown, HeaderParam["type"], string | undefined]>([
    ["Oslo", "string", "Oslo"],
    ["Zürich", "string", b64("Zürich")],
    [42, "integer", "42"],
    [-7, "integer", "-7"],
    [1.5, "integer", undefined],
    [2 ** 53, "integer", undefined],
    [true, "boolean", "true"],
    [false, "boolean", "false"],
    ["true", "boolean", undefined],
    [null, "string", undefined],
    [undefined, "integer", undefined],
  ])("formats %j as a %s header value: %j", (value, type, expected) => {
    expect(formatParamValue(value, type)).toBe(expected);
  });

  it("builds one header per present annotated argument", () => {
    const params = headerParamsOf(WEATHER_TOOL) as HeaderParam[];
    expect(paramHeaders(params, { region: "Oslo", metric: false, options: { station: "S 1" } })).toEqual({
      "Mcp-Param-Region": "Oslo",
      "Mcp-Param-Metric": "false",
      "Mcp-Param-Station": "S 1",
    });
  });
});

describe("checkParamHeaders", () => {
  const params = headerParamsOf(WEATHER_TOOL) as HeaderParam[];

  it("passes when every header mirrors its argument", () => {
    expect(() =>
      checkParamHeaders(
        params,
        { region: "Zürich", days: 3, metric: true },
        {
          "mcp-param-region": b64("Zürich"),
          "mcp-param-days": "3",
          "mcp-param-metric": "true",
        },
      ),
    ).not.toThrow();
  });

  it("reports a body value whose keys shadow Object's methods as a mismatch, never by calling them", () => {
    // JSON from a peer: "toString" here is data, and String() on it would throw a TypeError (a 500).
    const hostile = JSON.parse('{"toString":{},"valueOf":{}}') as unknown;
    for (const args of [{ region: hostile }, { days: hostile }, { metric: hostile }]) {
      const [key] = Object.keys(args);
      const header = `mcp-param-${key}`;
      expect(mismatchOf(() => checkParamHeaders(params, args, { [header]: "x" }))).toContain(
        `does not match body value '{"toString":{},"valueOf":{}}'`,
      );
    }
  });

  it("compares integers numerically, reading the header as a JSON number literal", () => {
    for (const header of ["10", "10.0", "1e1", "1.0E+1", "100e-1"]) {
      expect(() => checkParamHeaders(params, { days: 10 }, { "mcp-param-days": header })).not.toThrow();
    }
    expect(() => checkParamHeaders(params, { days: -3 }, { "mcp-param-days": "-3.00" })).not.toThrow();
    for (const header of ["010", "+10", "10.5", "1e-1", "10.0000000000000001", "1e400", "ten", ""]) {
      expect(
        mismatchOf(() => checkParamHeaders(params, { days: 10 }, { "mcp-param-days": header })),
      ).toContain("Mcp-Param-Days");
    }
    expect(mismatchOf(() => checkParamHeaders(params, { days: -3 }, { "mcp-param-days": "3" }))).toContain(
      "body value '-3'",
    );
  });

  it("looks up annotated arguments as own properties, never on the prototype", () => {
    const inherited = headerParamsOf(
      tool({ constructor: { type: "string", "x-mcp-header": "Kind" } }),
    ) as HeaderParam[];
    expect(() => checkParamHeaders(inherited, {}, {})).not.toThrow();
    expect(paramHeaders(inherited, {})).toEqual({});
    expect(() =>
      checkParamHeaders(inherited, { constructor: "box" }, { "mcp-param-kind": "box" }),
    ).not.toThrow();
  });

  it("reports a missing header, a header without argument, and a mismatch, each as -32020", () => {
    expect(mismatchOf(() => checkParamHeaders(params, { region: "Oslo" }, {}))).toBe(
      "Header mismatch: Mcp-Param-Region header is required for this tool call",
    );
    expect(mismatchOf(() => checkParamHeaders(params, {}, { "mcp-param-metric": "true" }))).toBe(
      "Header mismatch: Mcp-Param-Metric is present but the argument is absent",
    );
    expect(
      mismatchOf(() => checkParamHeaders(params, { metric: true }, { "mcp-param-metric": "false" })),
    ).toBe("Header mismatch: Mcp-Param-Metric header value 'false' does not match body value 'true'");
    expect(
      mismatchOf(() => checkParamHeaders(params, { region: "Oslo" }, { "mcp-param-region": "Os\u00f8" })),
    ).toBe("Header mismatch: Mcp-Param-Region header has invalid characters or encoding");
  });

  it("treats a null argument as absent", () => {
    expect(() => checkParamHeaders(params, { region: null }, {})).not.toThrow();
  });

  it("refuses a plain header for a value that needed the sentinel", () => {
    expect(
      mismatchOf(() =>
        checkParamHeaders(params, { region: "=?base64?SGk=?=" }, { "mcp-param-region": "=?base64?SGk=?=" }),
      ),
    ).toContain("'Hi'");
  });
});
