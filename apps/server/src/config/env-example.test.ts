import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../index.js";
import { EnvSchema } from "./env-schema.js";

async function example(): Promise<Record<string, string>> {
  const text = await readFile(new URL("../../.env.example", import.meta.url), "utf8");
  const entries = text
    .split("\n")
    .map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map(([, name, value]) => [name ?? "", value ?? ""] as const);
  return Object.fromEntries(entries);
}

describe(".env.example", () => {
  it("documents exactly the variables the server reads", async () => {
    expect(Object.keys(await example()).sort()).toEqual(Object.keys(EnvSchema.shape).sort());
  });

  it("is a configuration the server accepts as it stands", async () => {
    const config = loadConfig(await example());
    expect(config.publicUrl).toBe("http://127.0.0.1:3000/mcp");
    expect(config.keys.kind).toBe("ephemeral");
  });
});
