import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { SavedRound } from "../../client/rounds/rounds.js";
import { elicitForm, inputRequired } from "../../protocol/input-required.js";
import type { CallToolResult } from "../../protocol/schemas/tools.js";
import { McpServer } from "../index.js";
import { toElicitationSchema } from "./elicitation-schema.js";
import { acceptedContent, inputResponse } from "./input-responses.js";
import { ask, resolver } from "./resolvers/resolvers.js";
import { accept, scriptedUser } from "./test-support/answers.js";
import { connectionsClosedAfterEach, WIRES } from "./test-support/connections.js";

/**
 * Examples of the SDK's documentation, verbatim apart from imports, run over every wire: the servers of
 * packages/sdk/docs/examples/asking-the-user/ and server/raw-json-schema.ts, and the job of
 * client/save-and-resume.ts. Keep the two in step.
 */

const Region = z.object({ region: z.enum(["eu-west-1", "us-east-1"]) });
const Audience = z.object({ audience: z.enum(["executives", "engineers"]) });
const Confirm = z.object({ confirm: z.boolean() });

function echo(mcp: McpServer): void {
  mcp.tool(
    "echo",
    { input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
    ({ text }) => String(text),
  );
}

function handBuiltProvision(mcp: McpServer): void {
  mcp.tool("provision", { input: z.object({ service: z.string() }) }, ({ service }, ctx) => {
    const answer = inputResponse(ctx.inputResponses, "region");
    if (answer.kind === "declined" || answer.kind === "cancelled")
      return `Provisioning of ${service} ${answer.kind}`;
    const choice = acceptedContent(ctx.inputResponses, "region", Region);
    if (!choice) {
      return inputRequired({
        inputRequests: { region: elicitForm(`Where should ${service} run?`, toElicitationSchema(Region)) },
      });
    }
    return `Provisioned ${service} in ${choice.region}`;
  });
}

function resolverProvision(mcp: McpServer): void {
  const region = resolver(({ args }: { args: { service: string } }) =>
    ask.elicit(`Where should ${args.service} run?`, Region),
  );
  mcp.tool(
    "provision",
    { input: z.object({ service: z.string() }), resolve: { region } },
    ({ service }, { region }) => `Provisioned ${service} in ${region.region}`,
  );
}

function briefing(mcp: McpServer): void {
  mcp.prompt("briefing", { input: z.object({ topic: z.string() }) }, ({ topic }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "audience", Audience);
    if (!answer) {
      return inputRequired({
        inputRequests: {
          audience: elicitForm(`Who is the briefing on ${topic} for?`, toElicitationSchema(Audience)),
        },
      });
    }
    return `Write a one-page briefing on ${topic} for ${answer.audience}.`;
  });
}

function reports(mcp: McpServer): void {
  mcp.resource("report", { uri: "reports://{id}", mimeType: "text/plain" }, ({ id }, ctx) => {
    const answer = acceptedContent(ctx.inputResponses, "confirm", Confirm);
    if (!answer) {
      return inputRequired({
        inputRequests: {
          confirm: elicitForm(`Open report ${id}? Reads are audited.`, toElicitationSchema(Confirm)),
        },
      });
    }
    return answer.confirm ? `Report ${id}: all systems nominal` : `Report ${id} was not opened`;
  });
}

function deploy(
  mcp: McpServer,
  releases: { next(): string; ship(release: string, env: string): void },
): void {
  mcp.tool("deploy", { input: z.object({ env: z.enum(["staging", "prod"]) }) }, ({ env }, ctx) => {
    // This handler's requestState is its own: it says which step, and which release, an answer is for.
    const [step, release] = (ctx.requestState ?? "plan").split(":");
    if (step === "plan" || !release) {
      const planned = releases.next();
      return inputRequired({
        inputRequests: { confirm: elicitForm(`Deploy ${planned} to ${env}?`, toElicitationSchema(Confirm)) },
        requestState: `confirm:${planned}`,
      });
    }
    const answer = acceptedContent(ctx.inputResponses, "confirm", Confirm);
    if (!answer?.confirm) return `Release ${release} was not deployed`;
    releases.ship(release, env);
    return `Deployed ${release} to ${env}`;
  });
}

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe.each(WIRES)("README examples over %s", (wire) => {
  const connect = connectionsClosedAfterEach();

  it("echo validates its raw JSON Schema input", async () => {
    const mcp = new McpServer({ name: "infra", version: "1.0.0" });
    echo(mcp);
    const { client } = await connect(mcp, wire);
    expect(textOf(await client.callTool("echo", { text: "hi" }))).toBe("hi");
    const refused = await client.callTool("echo", { text: 7 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^Invalid arguments for tool 'echo': field 'text': /);
  });

  it.each([
    ["hand-built", handBuiltProvision],
    ["resolver", resolverProvision],
  ])("provision (%s) asks for a region and provisions there", async (_form, register) => {
    const mcp = new McpServer({ name: "infra", version: "1.0.0" });
    register(mcp);
    const user = scriptedUser(() => accept({ region: "eu-west-1" }));
    const { client } = await connect(mcp, wire, { onElicit: user.onElicit });
    expect(textOf(await client.callTool("provision", { service: "api" }))).toBe(
      "Provisioned api in eu-west-1",
    );
    expect(user.asked).toEqual(["Where should api run?"]);
    expect(user.keys).toEqual(["region"]);
  });

  it("provision (hand-built) reports a decline instead of asking again", async () => {
    const mcp = new McpServer({ name: "infra", version: "1.0.0" });
    handBuiltProvision(mcp);
    const { client } = await connect(mcp, wire, { onElicit: () => ({ action: "decline" }) });
    expect(textOf(await client.callTool("provision", { service: "api" }))).toBe(
      "Provisioning of api declined",
    );
  });

  it("the briefing prompt asks who it is for", async () => {
    const mcp = new McpServer({ name: "docs", version: "1.0.0" });
    briefing(mcp);
    const user = scriptedUser(() => accept({ audience: "engineers" }));
    const { client } = await connect(mcp, wire, { onElicit: user.onElicit });
    const prompt = await client.getPrompt("briefing", { topic: "request state" });
    expect(prompt.messages).toEqual([
      {
        role: "user",
        content: { type: "text", text: "Write a one-page briefing on request state for engineers." },
      },
    ]);
    expect(user.asked).toEqual(["Who is the briefing on request state for?"]);
  });

  it("the report template asks for confirmation before it is read", async () => {
    const mcp = new McpServer({ name: "ops", version: "1.0.0" });
    reports(mcp);
    const { client } = await connect(mcp, wire, { onElicit: () => accept({ confirm: true }) });
    expect((await client.readResource("reports://q3")).contents).toEqual([
      { uri: "reports://q3", mimeType: "text/plain", text: "Report q3: all systems nominal" },
    ]);
  });

  it("deploy carries its own step id and ships exactly the release the user confirmed", async () => {
    const mcp = new McpServer({ name: "ops", version: "1.0.0" });
    let counter = 0;
    const shipped: string[] = [];
    deploy(mcp, { next: () => `r${++counter}`, ship: (release, env) => shipped.push(`${release}@${env}`) });
    const user = scriptedUser(() => accept({ confirm: true }));
    const { client } = await connect(mcp, wire, { onElicit: user.onElicit });
    expect(textOf(await client.callTool("deploy", { env: "prod" }))).toBe("Deployed r1 to prod");
    expect(user.asked).toEqual(["Deploy r1 to prod?"]);
    expect(shipped).toEqual(["r1@prod"]);
  });

  it("deploy stops at the confirmation, and a fresh client finishes it from the saved round", async () => {
    const mcp = new McpServer({ name: "ops", version: "1.0.0" });
    const shipped: string[] = [];
    deploy(mcp, { next: () => "r7", ship: (release, env) => shipped.push(`${release}@${env}`) });
    const logged: string[] = [];
    const log = (line: string) => logged.push(line);
    let file = "";

    const options = { capabilities: { elicitation: { form: {} } } };
    const job = (await connect(mcp, wire, options)).client;
    const outcome = await job.runRounds(
      { method: "tools/call", params: { name: "deploy", arguments: { env: "prod" } } },
      {
        onRound: (round) => {
          log(`round ${round.round}: ${Object.keys(round.result.inputRequests ?? {}).join(", ")}`);
          return { kind: "stop" };
        },
      },
    );
    if (outcome.kind === "stopped") file = JSON.stringify(outcome.saved);

    const saved = JSON.parse(file) as SavedRound<"tools/call">;
    const resumed = await (await connect(mcp, wire, options)).client.runRounds(saved, {
      onRound: (round) =>
        round.round === saved.round
          ? { kind: "answer", inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }
          : { kind: "stop" },
    });
    if (resumed.kind === "complete") log(textOf(resumed.result));

    expect(logged).toEqual(["round 1: confirm", "Deployed r7 to prod"]);
    expect(shipped).toEqual(["r7@prod"]);
  });
});
