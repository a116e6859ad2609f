import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { APP_DIR, newHome, runCli } from "./support/run-cli.js";

describe("--stdio", () => {
  it("carries U+2028 and U+2029 to the server and back inside one message", async () => {
    const home = await newHome();
    const text = "one\u2028two\u2029three";
    const server = `node ${join(APP_DIR, "test", "support", "stdio-server.mjs")}`;
    const call = await runCli(["--stdio", server, "--json", "call", "echo", `text=${text}`, "times=2"], {
      home,
    });
    expect(call.code, call.stderr).toBe(0);
    expect(call.json()).toMatchObject({
      status: "complete",
      result: { content: [{ type: "text", text: `${text} ${text}` }] },
    });
  });
});
