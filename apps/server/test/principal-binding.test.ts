import type { LocalAuthServer } from "@roundtrip/local-auth";
import { type InputRequiredResult, isInputRequiredResult, McpError } from "@roundtrip/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let app: RunningServer;
const tokens: Record<"alice" | "bob" | "machine", string> = { alice: "", bob: "", machine: "" };
const watch = new LeakWatch();

const ARGS = { service: "ledger", env: "production" };
const CONFIRMED = { confirm: { action: "accept" as const, content: { confirm: true } } };

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as));
  // alice and bob sign in through the same interactive client; the machine client is another client.
  tokens.alice = (await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy")).accessToken;
  tokens.bob = (await as.authorizationCodeToken("bob", "mcp:tools mcp:deploy")).accessToken;
  tokens.machine = await as.clientCredentialsToken("mcp-machine", "mcp:tools mcp:deploy");
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

function clientOf(who: keyof typeof tokens) {
  return mcpClient(app.url, tokens[who], watch, { onElicit: () => ({ action: "accept" }) });
}

/** alice's first deploy round: the confirmation question and the sealed state bound to her. */
async function alicesFirstRound(): Promise<InputRequiredResult> {
  const result = await clientOf("alice").manualRounds.callTool("deploy", ARGS, { allowInputRequired: true });
  if (!isInputRequiredResult(result) || result.requestState === undefined) {
    throw new Error(`expected an InputRequiredResult with state, got ${JSON.stringify(result)}`);
  }
  return result;
}

async function refusal(promise: Promise<unknown>): Promise<McpError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome) || !(outcome.error instanceof McpError)) {
    throw new Error(`expected an MCP error, got ${JSON.stringify(outcome)}`);
  }
  return outcome.error;
}

describe("requestState is bound to the principal of the token that minted it", () => {
  it("lets alice complete her own round (the control for the refusals below)", async () => {
    const first = await alicesFirstRound();

    const second = await clientOf("alice").manualRounds.callTool("deploy", ARGS, {
      allowInputRequired: true,
      requestState: first.requestState,
      inputResponses: CONFIRMED,
    });

    expect(isInputRequiredResult(second) && Object.keys(second.inputRequests ?? {})).toEqual(["approval"]);
  });

  it("refuses alice's state from bob, another user of the same OAuth client", async () => {
    const first = await alicesFirstRound();
    const before = app.dispatched.length;

    const error = await refusal(
      clientOf("bob").manualRounds.callTool("deploy", ARGS, {
        allowInputRequired: true,
        requestState: first.requestState,
        inputResponses: CONFIRMED,
      }),
    );

    expect(error.code).toBe(-32602);
    expect(error.message).toBe("Invalid or expired requestState");
    expect(error.data).toEqual({ reason: "invalid_request_state" });
    // Refused at the request-state boundary, in front of later middleware and every handler.
    expect(app.dispatched.slice(before)).not.toContain("tools/call");
  });

  it("refuses alice's state from another OAuth client", async () => {
    const first = await alicesFirstRound();

    const error = await refusal(
      clientOf("machine").manualRounds.callTool("deploy", ARGS, {
        allowInputRequired: true,
        requestState: first.requestState,
        inputResponses: CONFIRMED,
      }),
    );

    expect([error.code, error.message]).toEqual([-32602, "Invalid or expired requestState"]);
  });

  it("refuses alice's state on other arguments, even from alice", async () => {
    const first = await alicesFirstRound();

    const error = await refusal(
      clientOf("alice").manualRounds.callTool(
        "deploy",
        { ...ARGS, env: "staging" },
        { allowInputRequired: true, requestState: first.requestState, inputResponses: CONFIRMED },
      ),
    );

    expect([error.code, error.message]).toEqual([-32602, "Invalid or expired requestState"]);
  });

  it("logs the real reason of each refusal, and neither the state nor the tokens", () => {
    const reasons = app.logs
      .lines()
      .filter(
        (line) => typeof line.reason === "string" && String(line.msg).startsWith("requestState rejected"),
      )
      .map((line) => line.reason);
    expect(reasons).toEqual(["principal", "principal", "request binding"]);
    expect(watch.leaksIn(app.logs.text())).toEqual([]);
  });
});
