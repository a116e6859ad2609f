import { describe, expect, it } from "vitest";
import { compileUriTemplate, isUriTemplate } from "./uri-template.js";

describe("URI templates (RFC 6570 levels 1 and 2)", () => {
  it("matches simple expressions one segment at a time and decodes the values", () => {
    const template = compileUriTemplate("tickets://{project}/{id}");
    expect(template.variables).toEqual(["project", "id"]);
    expect(template.match("tickets://core/42")).toEqual({ project: "core", id: "42" });
    expect(template.match("tickets://my%20team/7")).toEqual({ project: "my team", id: "7" });
    expect(template.match("tickets://core/42/extra")).toBeUndefined();
    expect(template.match("tickets://core/")).toBeUndefined();
    expect(template.match("other://core/42")).toBeUndefined();
  });

  it("lets a reserved expression span slashes and a fragment expression take the fragment", () => {
    expect(compileUriTemplate("repo://{name}/{+path}").match("repo://sdk/src/index.ts")).toEqual({
      name: "sdk",
      path: "src/index.ts",
    });
    expect(compileUriTemplate("doc://guide{#section}").match("doc://guide#setup")).toEqual({
      section: "setup",
    });
  });

  it("treats literal characters literally, including regular-expression ones", () => {
    const template = compileUriTemplate("file:///logs/{day}.log");
    expect(template.match("file:///logs/2026-07-28.log")).toEqual({ day: "2026-07-28" });
    expect(template.match("file:///logs/2026-07-28xlog")).toBeUndefined();
  });

  it("expands values back into a URI that matches to the same values", () => {
    const template = compileUriTemplate("repo://{name}/{+path}");
    const uri = template.expand({ name: "a b/c", path: "src/x y.ts" });
    expect(uri).toBe("repo://a%20b%2Fc/src/x%20y.ts");
    expect(template.match(uri)).toEqual({ name: "a b/c", path: "src/x y.ts" });
  });

  it("refuses expressions beyond level 2 and malformed templates when compiled", () => {
    expect(() => compileUriTemplate("search://{?q}")).toThrow(/beyond RFC 6570 level 2/);
    expect(() => compileUriTemplate("x://{a,b}")).toThrow(/one variable per expression/);
    expect(() => compileUriTemplate("x://{a*}")).toThrow(/level 2/);
    expect(() => compileUriTemplate("x://{a")).toThrow(/never closed/);
    expect(() => compileUriTemplate("x://a}")).toThrow(/without a matching/);
    expect(() => compileUriTemplate("x://{a}/{a}")).toThrow(/twice/);
    expect(() => compileUriTemplate("x://{}")).toThrow(/invalid variable name/);
  });

  it("tells templates from plain URIs", () => {
    expect(isUriTemplate("tickets://{id}")).toBe(true);
    expect(isUriTemplate("file:///README.md")).toBe(false);
  });

  it("does not match a value with broken percent-encoding", () => {
    expect(compileUriTemplate("t://{id}").match("t://%E0%A4%A")).toBeUndefined();
  });
});
