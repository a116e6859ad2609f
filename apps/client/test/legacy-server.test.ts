import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OfficialV1, startOfficialV1 } from "./support/official-v1.js";
import { newHome, runCli, writeAnswers } from "./support/run-cli.js";

/**
 * `roundtrip` against a 2025-era server (the official TypeScript SDK v1): the SDK negotiates a
 * session, and the server's requests during a call are answered from --answers, --yes or the
 * person, keyed by the server's request ids.
 */

let server: OfficialV1;
let home: string;

beforeAll(async () => {
  [server, home] = await Promise.all([startOfficialV1(), newHome()]);
});

afterAll(async () => {
  await server?.close();
});

const cli = (args: string[]) => runCli(["--server", server.url, "--json", ...args], { home });
const text = (run: { json<T>(): T }) =>
  run.json<{ result: { content: { text: string }[] } }>().result.content[0]?.text;

describe("roundtrip against a 2025-era server", () => {
  it("lists the server's tools", async () => {
    const run = await cli(["tools"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(run.json())).toContain("greet");
  });

  it("answers the server's form from --answers, keyed by its request id", async () => {
    const run = await cli(["call", "greet", "--answers", await writeAnswers(home, { "0": { name: "Ada" } })]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ status: "complete" });
    expect(text(run)).toBe("Hello, Ada");
  });

  it("sends a form at its defaults with --yes", async () => {
    const run = await cli(["call", "greet", "--yes"]);
    expect(run.code, run.stderr).toBe(0);
    expect(text(run)).toBe("Hello, friend");
  });

  it("answers a form and then a sampling request in one call", async () => {
    const file = await writeAnswers(home, { "0": { city: "Rome" }, "1": "pasta" });
    const run = await cli(["call", "plan", "--answers", file]);
    expect(run.code, run.stderr).toBe(0);
    expect(text(run)).toBe("Rome: pasta");
  });

  it("consents to a URL elicitation from --answers without opening anything", async () => {
    const run = await cli([
      "call",
      "login",
      "--no-browser",
      "--answers",
      await writeAnswers(home, { "0": "accept" }),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(text(run)).toBe("accept");
  });

  it("shares the --root directories when the server lists roots", async () => {
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-root-"));
    const run = await cli(["call", "where", "--root", dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(text(run)).toBe(pathToFileURL(dir).href);
  });

  it("a question without an answer and without a terminal fails with exit 4", async () => {
    const run = await cli(["call", "plan"]);
    expect(run.code).toBe(4);
    expect(run.json()).toMatchObject({ status: "error", exitCode: 4 });
    expect(run.stderr).toContain('"0"');
  });

  it("--detach is refused with what to do instead (exit 2): a session cannot wait for resume", async () => {
    const run = await cli(["call", "greet", "--detach"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/speaks the 2025 era \(2025-11-25\).*Run the call without --detach/);
  });

  it("a value the tool's input schema refuses exits 2 before anything is sent", async () => {
    const run = await cli(["call", "repeat", "times=twice"]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/repeat refuses these arguments: field 'times'.*nothing was sent/);
  });

  it("a tool result the server marks as an argument error (-32602) exits 2", async () => {
    const run = await cli(["call", "repeat", "times=11"]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain("the server refused the arguments as invalid: MCP error -32602");
    expect(run.stderr).toContain("at most 10 times");
    const fine = await cli(["call", "repeat", "times=2"]);
    expect(fine.code, fine.stderr).toBe(0);
  });
});
