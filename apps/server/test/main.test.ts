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
});
