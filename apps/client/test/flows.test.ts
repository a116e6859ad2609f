import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicStandIn, type ModelStandIn, openAiStandIn } from "./support/model-stand-ins.js";
import { loginAsMachine, newHome, runCli, writeAnswers } from "./support/run-cli.js";
import { type Stack, startStack } from "./support/stack.js";

let stack: Stack;
let home: string;
let openai: ModelStandIn;
let anthropic: ModelStandIn;

beforeAll(async () => {
  [stack, home, openai, anthropic] = await Promise.all([
    startStack(),
    newHome(),
    openAiStandIn("sk-test-openai"),
    anthropicStandIn("sk-test-anthropic"),
  ]);
  const login = await loginAsMachine(stack.url, home);
  expect(login.code, login.stderr).toBe(0);
});

afterAll(async () => {
  await Promise.all([stack?.close(), openai?.close(), anthropic?.close()]);
});

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(["--server", stack.url, "--json", ...args], { home, env });

const answers = (content: unknown) => writeAnswers(home, content);

describe("--detach, pending and resume", () => {
  it("saves the flow privately, lists it, and resumes it from a new process", async () => {
    const detached = await cli(["call", "create_service", "name=billing", "--detach"]);
    expect(detached.code, detached.stderr).toBe(10);
    const { id, waiting } = detached.json<{ id: string; waiting: string[] }>();
    expect(waiting.sort()).toEqual(["runtime", "tier"]);
    const file = join(home, "pending", `${id}.json`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, "pending"))).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(await readFile(file, "utf8")) as {
      requestState?: string;
      method: string;
      target: string;
    };
    expect(saved).toMatchObject({
      method: "tools/call",
      target: "create_service",
      arguments: { name: "billing" },
    });
    expect(saved.requestState).toBeTypeOf("string");
    // The opaque state stays in the file: never on the terminal.
    expect(detached.stdout + detached.stderr).not.toContain(saved.requestState);

    const listed = await cli(["pending"]);
    expect(listed.json<{ pending: { id: string }[] }>().pending.map((p) => p.id)).toContain(id);
    expect(listed.stdout).not.toContain(saved.requestState);

    const text = await runCli(["pending"], { home });
    expect(text.stdout).toMatch(
      new RegExp(`^${id} .* tools/call create_service .* waits for (runtime, tier|tier, runtime)$`, "m"),
    );
    const elsewhere = await runCli(["--server", "http://127.0.0.1:9/mcp", "resume", id], { home });
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toContain(`belongs to ${stack.url}`);

    // The second round (the confirmation) needs a person again: detached under the same id.
    const half = await cli([
      "resume",
      id,
      "--detach",
      "--answers",
      await answers({ runtime: { runtime: "python3.12" }, tier: { tier: "medium" } }),
    ]);
    expect(half.code, half.stderr).toBe(10);
    expect(half.json()).toMatchObject({ id, waiting: ["confirmation"] });

    const done = await cli(["resume", id, "--answers", await answers({ confirmation: { confirm: true } })]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.stringify(done.json())).toContain("Created service billing on python3.12, size medium");
    await expect(stat(file)).rejects.toThrow();
    const again = await cli(["resume", id]);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain("roundtrip pending");
  });

  it("names the page a detached URL question waits on, when detaching and in pending", async () => {
    const url = "https://review.example.com/changes/42?tab=diff";
    const detached = await cli(["call", "visit", "--detach"]);
    expect(detached.code, detached.stderr).toBe(10);
    const { id, questions } = detached.json<{ id: string; questions: unknown[] }>();
    expect(questions).toEqual([{ key: "page", kind: "url", message: "Review the change", url }]);
    const text = await runCli(["--server", stack.url, "call", "visit", "--detach"], { home });
    expect(text.code, text.stderr).toBe(10);
    expect(text.stderr).toContain(`  "page": open ${url} (Review the change)`);

    const listed = await runCli(["pending"], { home });
    expect(listed.stdout).toMatch(
      new RegExp(`^${id} .* tools/call visit .* waits for page\n  "page": open `, "m"),
    );
    const json = await cli(["pending"]);
    const row = json
      .json<{ pending: { id: string; questions: unknown[] }[] }>()
      .pending.find((p) => p.id === id);
    expect(row?.questions).toEqual(questions);
    for (const flow of json.json<{ pending: { id: string; target: string }[] }>().pending) {
      if (flow.target === "visit") expect((await cli(["pending", "--delete", flow.id])).code).toBe(0);
    }
  });

  it("echoes the saved requestState byte for byte: a changed one is refused by the server", async () => {
    const detached = await cli(["prompt", "incident_brief", "service=db", "--detach"]);
    const { id } = detached.json<{ id: string }>();
    const detachedFlow = await cli(["call", "create_service", "name=queue", "--detach"]);
    const stateful = detachedFlow.json<{ id: string }>().id;
    const file = join(home, "pending", `${stateful}.json`);
    const saved = JSON.parse(await readFile(file, "utf8")) as { requestState: string };
    // The second-to-last character, whose six bits all count (the last one's may be padding), is
    // replaced by another: comparing the character replaced, so the state always changes.
    const flipped =
      saved.requestState.slice(0, -2) +
      (saved.requestState.at(-2) === "A" ? "B" : "A") +
      saved.requestState.slice(-1);
    expect(flipped).not.toBe(saved.requestState);
    await writeFile(file, JSON.stringify({ ...saved, requestState: flipped }));
    const resumed = await cli([
      "resume",
      stateful,
      "--answers",
      await answers({ runtime: { runtime: "node20" }, tier: { tier: "small" } }),
    ]);
    // Refused before anything is asked or answered, naming what to do with the flow: without answers
    // and without a terminal this would otherwise stop at the first question (exit 4).
    const unanswered = await cli(["resume", stateful]);
    expect(unanswered.code, unanswered.stderr).toBe(2);
    expect(unanswered.stderr).toContain(`pending flow ${stateful} can no longer be resumed`);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toContain(`pending flow ${stateful} can no longer be resumed`);
    expect(resumed.stderr).toContain("Invalid or expired requestState");
    expect(resumed.stderr).toContain(`roundtrip pending --delete ${stateful}`);
    expect(resumed.stderr).not.toContain(flipped);
    // A flow whose first round had no state resumes with none.
    const brief = await cli(["resume", id, "--answers", await answers({ severity: { severity: "sev1" } })]);
    expect(brief.code, brief.stderr).toBe(0);
    const deleted = await cli(["pending", "--delete", stateful]);
    expect(deleted.code).toBe(0);
  });

  it("pending --prune deletes the flows their server can no longer open and keeps the rest", async () => {
    const live = (await cli(["call", "create_service", "name=kept", "--detach"])).json<{ id: string }>().id;
    const dead = (await cli(["call", "create_service", "name=gone", "--detach"])).json<{ id: string }>().id;
    const file = join(home, "pending", `${dead}.json`);
    const saved = JSON.parse(await readFile(file, "utf8")) as { requestState: string };
    const damaged = `${saved.requestState.slice(0, -2)}${saved.requestState.at(-2) === "A" ? "B" : "A"}${saved.requestState.slice(-1)}`;
    await writeFile(file, JSON.stringify({ ...saved, requestState: damaged }));

    const pruned = await cli(["pending", "--prune"]);
    expect(pruned.code, pruned.stderr).toBe(0);
    const rows = pruned.json<{ pruned: { id: string; outcome: string }[] }>().pruned;
    expect(rows).toContainEqual(expect.objectContaining({ id: dead, outcome: "deleted" }));
    expect(rows).toContainEqual(expect.objectContaining({ id: live, outcome: "kept" }));
    await expect(stat(file)).rejects.toThrow();
    // The kept flow still finishes.
    const done = await cli([
      "resume",
      live,
      "--answers",
      await answers({
        runtime: { runtime: "node22" },
        tier: { tier: "small" },
        confirmation: { confirm: true },
      }),
    ]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.stringify(done.json())).toContain("Created service kept on node22, size small");
  });
});

describe("sampling providers", () => {
  it("openai-compatible: sends the request to chat completions and returns the reply (--yes)", async () => {
    const run = await cli(
      [
        "call",
        "summarize",
        "text=Retries with backoff keep services alive.",
        "--yes",
        "--sampling-provider",
        "openai",
        "--sampling-base-url",
        openai.baseUrl,
        "--sampling-model",
        "llama3",
        "--sampling-api-key-env",
        "TEST_OPENAI_KEY",
      ],
      { TEST_OPENAI_KEY: "sk-test-openai" },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(run.json())).toMatch(/Summary \(by llama3-0001\): openai says: \d+ chars/);
    const sent = openai.seen.at(-1)!.body;
    expect(sent).toMatchObject({ model: "llama3", max_tokens: 200 });
    expect(sent.messages).toEqual([
      { role: "system", content: "You write one-sentence summaries. Answer with the summary only." },
      { role: "user", content: "Summarize:\n\nRetries with backoff keep services alive." },
    ]);
    expect(run.stdout + run.stderr).not.toContain("sk-test-openai");
  });

  it("openai-compatible with --yes: the model must be named, maxTokens is capped; limits, stop sequences, no key for a local server", async () => {
    const local = await openAiStandIn(undefined);
    try {
      const yes = ["--yes", "--sampling-provider", "openai", "--sampling-base-url", local.baseUrl];
      const hinted = await cli(["call", "haiku", ...yes]);
      expect(hinted.code).toBe(2);
      expect(hinted.stderr).toContain("pass --sampling-model");
      expect(local.seen).toHaveLength(0);

      const run = await cli(["call", "haiku", ...yes, "--sampling-model", "local-model"]);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.stringify(run.json())).toContain("poem by local-model-0001 (endTurn)");
      expect(run.stderr).toContain("at most 1024 tokens (--yes)");
      expect(local.seen[0]?.body).toMatchObject({
        model: "local-model",
        max_tokens: 64,
        temperature: 0.2,
        stop: ["END"],
      });
      expect(local.seen[0]?.headers.authorization).toBeUndefined();

      // The server asks for far more than the default cap of 1024, and more than --sampling-max-tokens.
      const essay = await cli(["call", "essay", ...yes, "--sampling-model", "local-model"]);
      expect(essay.code, essay.stderr).toBe(0);
      expect(local.seen[1]?.body).toMatchObject({ max_tokens: 1024 });
      const capped = await cli([
        "call",
        "essay",
        ...yes,
        "--sampling-model",
        "local-model",
        "--sampling-max-tokens",
        "16",
      ]);
      expect(capped.code, capped.stderr).toBe(0);
      expect(local.seen[2]?.body).toMatchObject({ max_tokens: 16 });
      const badCap = await cli([
        "call",
        "essay",
        ...yes,
        "--sampling-model",
        "m",
        "--sampling-max-tokens",
        "0",
      ]);
      expect(badCap.code).toBe(2);
      expect(badCap.stderr).toContain("--sampling-max-tokens must be a whole number");
      expect(local.seen).toHaveLength(3);
    } finally {
      await local.close();
    }
  });

  it("anthropic: the Messages API with the key from the named variable", async () => {
    const run = await cli(
      [
        "call",
        "haiku",
        "--yes",
        "--sampling-provider",
        "anthropic",
        "--sampling-base-url",
        anthropic.baseUrl,
        "--sampling-model",
        "claude-test",
      ],
      { ANTHROPIC_API_KEY: "sk-test-anthropic" },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(run.json())).toContain("poem by claude-test (maxTokens): anthropic says hi");
    expect(anthropic.seen.at(-1)?.body).toMatchObject({
      model: "claude-test",
      system: "You are a poet.",
      max_tokens: 64,
      stop_sequences: ["END"],
      messages: [{ role: "user", content: [{ type: "text", text: "Write a haiku about retries" }] }],
    });
  });

  it("provider failures and missing approval say what to do", async () => {
    const wrongKey = await cli(
      [
        "call",
        "haiku",
        "--yes",
        "--sampling-provider",
        "anthropic",
        "--sampling-base-url",
        anthropic.baseUrl,
        "--sampling-model",
        "m",
      ],
      { ANTHROPIC_API_KEY: "wrong" },
    );
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain("HTTP 401");
    expect(wrongKey.stderr).toContain("--sampling-api-key-env");
    const noKey = await cli([
      "call",
      "haiku",
      "--yes",
      "--sampling-provider",
      "anthropic",
      "--sampling-base-url",
      anthropic.baseUrl,
      "--sampling-model",
      "m",
    ]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("set ANTHROPIC_API_KEY");
    const unapproved = await cli([
      "call",
      "haiku",
      "--sampling-provider",
      "openai",
      "--sampling-base-url",
      openai.baseUrl,
    ]);
    expect(unapproved.code).toBe(4);
    expect(unapproved.stderr).toContain('"poem"');
    const badProvider = await cli(["call", "haiku", "--sampling-provider", "gpt"]);
    expect(badProvider.code).toBe(2);
  });

  it("human: the reply text comes from --answers, reported as model human", async () => {
    const run = await cli(["call", "haiku", "--answers", await answers({ poem: "old pond, retry" })]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(run.json())).toContain("poem by human (endTurn): old pond, retry");
  });
});
