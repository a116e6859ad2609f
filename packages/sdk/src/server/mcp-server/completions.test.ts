import { describe, expect, it } from "vitest";
import * as z from "zod";
import { ErrorCode, McpError } from "../../protocol/errors.js";
import { recordingLogger } from "../../test-support/in-process.js";
import { McpServer } from "../index.js";
import { connectionsClosedAfterEach } from "./test-support/connections.js";

const FRAMEWORKS: Record<string, string[]> = {
  ts: ["angular", "react", "remix", "svelte"],
  py: ["django", "flask", "fastapi"],
};

/** A prompt and a template that complete; `seen` keeps what each completer was handed. */
function completingServer() {
  const seen: unknown[] = [];
  const mcp = new McpServer({ name: "completing", version: "1.0.0" }, { logger: recordingLogger() });
  mcp.prompt(
    "review",
    {
      input: z.object({ language: z.string(), framework: z.string(), notes: z.string().optional() }),
      complete: {
        language: (value) => Object.keys(FRAMEWORKS).filter((name) => name.startsWith(value)),
        framework: (value, context) => {
          seen.push(context.arguments);
          const all = FRAMEWORKS[context.arguments.language ?? ""] ?? [];
          return all.filter((name) => name.startsWith(value));
        },
      },
    },
    ({ language, framework }) => `Review this ${language} code written with ${framework}`,
  );
  mcp.resource(
    "issue",
    {
      uri: "issues://{owner}/{repo}/{number}",
      complete: {
        repo: (value, context) => ({
          values: [`${context.arguments.owner}-api`, `${context.arguments.owner}-web`].filter((name) =>
            name.includes(value),
          ),
          total: 2,
          hasMore: false,
        }),
        number: () => Array.from({ length: 250 }, (_, i) => String(i + 1)),
      },
    },
    ({ owner, repo, number }) => `${owner}/${repo}#${number}`,
  );
  return { mcp, seen };
}

const prompt = (name: string) => ({ type: "ref/prompt" as const, name });
const template = (uri: string) => ({ type: "ref/resource" as const, uri });

describe("completion/complete on McpServer, through the Roundtrip Client over HTTP", () => {
  const connect = connectionsClosedAfterEach();

  it("declares completions and suggests a prompt argument from the typed value and the other arguments", async () => {
    const { mcp, seen } = completingServer();
    const { client } = await connect(mcp, "http");
    const result = await client.complete({
      ref: prompt("review"),
      argument: { name: "framework", value: "r" },
      context: { arguments: { language: "ts", framework: "stale" } },
    });
    expect(result.completion).toEqual({ values: ["react", "remix"] });
    expect(seen).toEqual([{ language: "ts" }]);
    expect(client.serverCapabilities?.completions).toEqual({});
    const languages = await client.complete({
      ref: prompt("review"),
      argument: { name: "language", value: "p" },
    });
    expect(languages.completion.values).toEqual(["py"]);
  });

  it("suggests a resource template variable, keeping the total and hasMore the completer gave", async () => {
    const { client } = await connect(completingServer().mcp, "http");
    const result = await client.complete({
      ref: template("issues://{owner}/{repo}/{number}"),
      argument: { name: "repo", value: "we" },
      context: { arguments: { owner: "octo" } },
    });
    expect(result.completion).toEqual({ values: ["octo-web"], total: 2, hasMore: false });
  });

  it("sends at most 100 values, with the full count and hasMore when a completer returns more", async () => {
    const { client } = await connect(completingServer().mcp, "http");
    const result = await client.complete({
      ref: template("issues://{owner}/{repo}/{number}"),
      argument: { name: "number", value: "" },
    });
    expect(result.completion.values).toHaveLength(100);
    expect(result.completion.values[99]).toBe("100");
    expect(result.completion).toMatchObject({ total: 250, hasMore: true });
  });

  it("answers an argument without a completer with no values", async () => {
    const { client } = await connect(completingServer().mcp, "http");
    const result = await client.complete({ ref: prompt("review"), argument: { name: "notes", value: "x" } });
    expect(result.completion).toEqual({ values: [] });
  });

  it("refuses an unknown prompt, template or argument with -32602 saying what exists", async () => {
    const { client } = await connect(completingServer().mcp, "http");
    const refused = async (params: Parameters<typeof client.complete>[0]) => {
      const error = await client.complete(params).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
      return (error as McpError).message;
    };
    expect(await refused({ ref: prompt("reveiw"), argument: { name: "language", value: "" } })).toContain(
      "Unknown prompt: 'reveiw'",
    );
    expect(
      await refused({ ref: template("issues://{owner}"), argument: { name: "owner", value: "" } }),
    ).toContain("Unknown resource template: 'issues://{owner}'");
    expect(await refused({ ref: prompt("review"), argument: { name: "lang", value: "" } })).toContain(
      "Prompt 'review' has no argument 'lang'; complete one of: language, framework, notes",
    );
    expect(
      await refused({
        ref: template("issues://{owner}/{repo}/{number}"),
        argument: { name: "branch", value: "" },
      }),
    ).toContain("has no argument 'branch'");
  });

  it("declares no completions capability while nothing registered completes", async () => {
    const mcp = new McpServer({ name: "plain", version: "1.0.0" }, { logger: recordingLogger() });
    mcp.prompt("plain", { input: z.object({ topic: z.string() }) }, ({ topic }) => topic);
    const { client } = await connect(mcp, "http");
    await client.connect();
    expect(client.serverCapabilities?.prompts).toBeDefined();
    expect(client.serverCapabilities?.completions).toBeUndefined();
  });

  it("refuses at registration a completer for an argument that does not exist, or on a static resource", () => {
    const mcp = new McpServer({ name: "strict", version: "1.0.0" }, { logger: recordingLogger() });
    expect(() =>
      mcp.prompt(
        "typo",
        // @ts-expect-error: 'lang' is not an argument of the prompt
        { input: z.object({ language: z.string() }), complete: { lang: () => [] } },
        () => "x",
      ),
    ).toThrow("Prompt 'typo': complete names 'lang', which is not one of its arguments ('language')");
    expect(() => mcp.resource("fixed", { uri: "config://app", complete: {} }, () => "x")).toThrow(
      /static and has nothing to complete/,
    );
  });
});
