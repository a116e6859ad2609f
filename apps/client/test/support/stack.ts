import { type LocalAuthServer, startLocalAuthServer } from "@roundtrip/local-auth";
import {
  createMessage,
  type ElicitationSchema,
  elicitForm,
  elicitUrl,
  inputRequired,
  inputResponse,
} from "@roundtrip/sdk";
import { buildServer, loadConfig, type RoundtripServer } from "@roundtrip/server";
import { freePort } from "@roundtrip/test-services";

/**
 * The real reference server (buildServer) trusting the real development authorization server, both on
 * loopback. The server's PUBLIC_URL must be the address the CLI calls, since the OAuth client checks
 * that the protected resource metadata speaks for exactly that URL, so a free port is picked first.
 */
export interface Stack {
  /** The MCP endpoint, e.g. http://127.0.0.1:41234/mcp. */
  url: string;
  as: LocalAuthServer;
  server: RoundtripServer;
  /** Restarts the reference server on the same URL trusting another authorization server, as a redeploy would. */
  trust(issuer: string): Promise<void>;
  /**
   * Restarts the reference server as it was, on the same URL. It has no request-state key configured,
   * so it seals with a key of its own process: every flow saved before can no longer be opened.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Every field type of the restricted elicitation schema. */
export const PROFILE_SCHEMA: ElicitationSchema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2, maxLength: 20 },
    email: { type: "string", title: "Email", format: "email" },
    birthday: { type: "string", title: "Birthday", format: "date" },
    age: { type: "integer", title: "Age", minimum: 18, maximum: 99 },
    ratio: { type: "number", title: "Ratio", minimum: 0, maximum: 1, default: 0.5 },
    newsletter: { type: "boolean", title: "Newsletter", default: false },
    plan: {
      type: "string",
      title: "Plan",
      oneOf: [
        { const: "free", title: "Free tier" },
        { const: "pro", title: "Professional" },
      ],
    },
    color: { type: "string", title: "Color", enum: ["red", "green", "blue"], default: "green" },
    tags: {
      type: "array",
      title: "Tags",
      items: { type: "string", enum: ["a", "b", "c"] },
      minItems: 1,
      maxItems: 2,
    },
    teams: {
      type: "array",
      title: "Teams",
      items: {
        anyOf: [
          { const: "ops", title: "Operations" },
          { const: "dev", title: "Development" },
        ],
      },
    },
  },
  required: ["name", "email", "age", "plan", "tags"],
};

/** Test-only capabilities, added to the reference server the way its README shows. */
function addTestTools(server: RoundtripServer): void {
  server.mcp.tool("signup", { description: "Asks for a profile with every kind of field" }, (_args, ctx) => {
    const answer = inputResponse(ctx.inputResponses, "profile");
    if (answer.kind === "declined" || answer.kind === "cancelled") return `signup ${answer.kind}`;
    if (answer.kind === "accepted") return `signed up ${JSON.stringify(answer.content)}`;
    return inputRequired({
      inputRequests: { profile: elicitForm("Tell us about yourself", PROFILE_SCHEMA) },
    });
  });
  server.mcp.tool("visit", { description: "Asks the user to open a page" }, (_args, ctx) => {
    const answer = inputResponse(ctx.inputResponses, "page");
    if (answer.kind === "missing") {
      return inputRequired({
        inputRequests: {
          page: elicitUrl("Review the change", "https://review.example.com/changes/42?tab=diff"),
        },
      });
    }
    return `page ${answer.kind}`;
  });
  server.mcp.tool("essay", { description: "Samples with a large maxTokens" }, (_args, ctx) => {
    const answer = inputResponse(ctx.inputResponses, "essay");
    if (answer.kind === "sampling") return `essay by ${answer.result.model}`;
    return inputRequired({
      inputRequests: {
        essay: createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Write at length about retries" } }],
          maxTokens: 100_000,
        }),
      },
    });
  });
  server.mcp.tool("haiku", { description: "Samples a haiku with model hints" }, (_args, ctx) => {
    const answer = inputResponse(ctx.inputResponses, "poem");
    if (answer.kind === "sampling") {
      const content = answer.result.content;
      const text = Array.isArray(content) ? "" : content.type === "text" ? content.text : "";
      return `poem by ${answer.result.model} (${answer.result.stopReason ?? "no reason"}): ${text}`;
    }
    return inputRequired({
      inputRequests: {
        poem: createMessage({
          systemPrompt: "You are a poet.",
          messages: [{ role: "user", content: { type: "text", text: "Write a haiku about retries" } }],
          maxTokens: 64,
          temperature: 0.2,
          stopSequences: ["END"],
          modelPreferences: { hints: [{ name: "hinted-model" }], speedPriority: 0.8 },
        }),
      },
    });
  });
}

async function startReferenceServer(port: number, url: string, issuer: string): Promise<RoundtripServer> {
  const silent = { write: () => true };
  const server = await buildServer(
    loadConfig(
      {
        HOST: "127.0.0.1",
        PORT: String(port),
        PUBLIC_URL: url,
        OAUTH_ISSUER: issuer,
        LOG_LEVEL: "silent",
      },
      "0.0.0-test",
    ),
    { logStream: silent },
  );
  addTestTools(server);
  await server.listen();
  await server.keyring.ready;
  return server;
}

export async function startStack(): Promise<Stack> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const as = await startLocalAuthServer({ resource: url });
  const stack: Stack = {
    url,
    as,
    server: await startReferenceServer(port, url, as.issuer),
    async trust(issuer) {
      await stack.server.close();
      stack.server = await startReferenceServer(port, url, issuer);
    },
    restart() {
      return stack.trust(as.issuer);
    },
    async close() {
      await stack.server.close();
      await as.close();
    },
  };
  return stack;
}
