import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHILD_START_WITHIN_MS, runChildToExit } from "./support/child-server.js";

describe("main.ts", () => {
  it("exits 2 before listening, listing each wrong variable and how to fix it", {
    timeout: CHILD_START_WITHIN_MS + 10_000,
  }, async () => {
    const exit = await runChildToExit({
      PUBLIC_URL: "",
      OAUTH_ISSUER: "https://auth.example.com",
      PORT: "eighty",
      KMS_WRAPPED_KEYS: "",
      REQUEST_STATE_KEY_FILE: "",
    });

    expect(exit.code).toBe(2);
    expect(exit.output).toContain("Invalid configuration (see .env.example for every variable):");
    expect(exit.output).toContain(
      '  - PORT must be a whole number from 0 to 65535 (a TCP port; 0 picks a free one), got "eighty"',
    );
    expect(exit.output).toMatch(
      / {2}- PUBLIC_URL is required: set it to the URL clients use for the MCP endpoint/,
    );
    expect(exit.output).not.toContain("listening");
  });

  it("exits 1 without serving when the request-state key file is readable by others, naming the chmod", {
    timeout: CHILD_START_WITHIN_MS + 10_000,
  }, async () => {
    const folder = await mkdtemp(join(tmpdir(), "roundtrip-open-keys-"));
    try {
      const path = join(folder, "keys");
      await writeFile(path, `${randomBytes(32).toString("hex")}\n`);
      await chmod(path, 0o644);
      const exit = await runChildToExit({
        PUBLIC_URL: "https://mcp.roundtrip.test/mcp",
        OAUTH_ISSUER: "https://auth.example.com",
        HOST: "127.0.0.1",
        PORT: "0",
        REQUEST_STATE_KEY_FILE: path,
      });
      expect(exit.code).toBe(1);
      expect(exit.output).toContain(`restrict it with: chmod 600 ${path}`);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
