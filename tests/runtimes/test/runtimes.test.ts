import { Client, isInputRequiredResult, McpError } from "@roundtrip/sdk";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RuntimeName } from "../src/runtime-binary.js";
import { type RuntimeServer, startRuntimeServer } from "../src/runtime-server.js";

const textOf = (result: unknown) =>
  ((result as { content?: { text?: string }[] }).content ?? []).map((block) => block.text ?? "").join("");

const answerRegion = () => ({ action: "accept" as const, content: { region: "eu-west-1" } });

/**
 * Workers keep no 2025-era sessions: the README's Worker turns them off (legacy: false). And a local
 * `workerd serve` never tells a Worker that its client went away: even a bare Worker waiting on
 * `request.signal` with enable_request_signal set sees no abort there (Cloudflare's edge does abort it).
 */
const RUNTIMES: readonly { runtime: RuntimeName; legacy: boolean; reportsDisconnects: boolean }[] = [
  { runtime: "bun", legacy: true, reportsDisconnects: true },
  { runtime: "deno", legacy: true, reportsDisconnects: true },
  { runtime: "workerd", legacy: false, reportsDisconnects: false },
];

describe.each(RUNTIMES)("createFetchHandler on $runtime", ({ runtime, legacy, reportsDisconnects }) => {
  let server: RuntimeServer;
  const clients: Client[] = [];
  const client = (options: ConstructorParameters<typeof Client>[1] = {}) => {
    const made = new Client(server.url, { logger: silentLogger, ...options });
    clients.push(made);
    return made;
  };

  beforeAll(async () => {
    server = await startRuntimeServer(runtime);
  });
  afterAll(async () => {
    for (const made of clients) await made.close();
    await server?.close();
  });

  it("serves a multi round-trip tool to the Roundtrip client", async () => {
    const result = await client({ onElicit: answerRegion }).callTool("provision", { service: "api" });
    expect(textOf(result)).toBe("Provisioned api in eu-west-1");
  });

  it("seals the round's state with the runtime's AES-256-GCM and refuses it altered", async () => {
    const manual = client({ capabilities: { elicitation: { form: {} } } });
    const round = await manual.manualRounds.callTool(
      "provision",
      { service: "api" },
      { allowInputRequired: true },
    );
    if (!isInputRequiredResult(round) || typeof round.requestState !== "string") {
      throw new Error(`expected a round, got ${JSON.stringify(round)}`);
    }
    expect(round.requestState).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(round.requestState).not.toContain("region");
    const inputResponses = { region: answerRegion() };
    const last = round.requestState.length - 1;
    const altered = round.requestState.slice(0, last) + (round.requestState[last] === "A" ? "Q" : "A");
    const refused = await manual.manualRounds
      .callTool("provision", { service: "api" }, { requestState: altered, inputResponses })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32602);
    const done = await manual.manualRounds.callTool(
      "provision",
      { service: "api" },
      { requestState: round.requestState, inputResponses },
    );
    expect(textOf(done)).toBe("Provisioned api in eu-west-1");
  });

  if (reportsDisconnects) {
    it("aborts the handler's signal when the client goes away mid-call", async () => {
      const caller = client();
      const before = Number(textOf(await caller.callTool("aborted", {})));
      const abort = new AbortController();
      const call = caller.callTool("wait", {}, { signal: abort.signal }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 300));
      abort.abort();
      await call;
      const deadline = Date.now() + 10_000;
      let seen = before;
      while (seen === before && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = Number(textOf(await caller.callTool("aborted", {})));
      }
      expect(seen, `the handler never saw its request end; ${runtime} said: ${server.output()}`).toBe(
        before + 1,
      );
    });
  }

  if (legacy) {
    it("serves a 2025-11-25 session: the question arrives on the call's event stream", async () => {
      const session = client({ era: "legacy", onElicit: answerRegion });
      expect(textOf(await session.callTool("provision", { service: "db" }))).toBe(
        "Provisioned db in eu-west-1",
      );
    });
  } else {
    it("refuses a 2025-11-25 session, with legacy: false, in words a client can act on", async () => {
      const refused = await client({ era: "legacy" })
        .callTool("provision", { service: "db" })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toMatch(/2026-07-28|version/i);
    });
  }
});
