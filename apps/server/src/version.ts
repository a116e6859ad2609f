import { readFile } from "node:fs/promises";

/** This package's version, reported as the MCP server version. Read at run time from src/ and dist/ alike. */
export async function packageVersion(): Promise<string> {
  try {
    const manifest = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof manifest.version === "string" ? manifest.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
