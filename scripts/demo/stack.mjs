// The servers of the demo, in this process: the development authorization server and the reference
// server trusting it, both on loopback, with a trace of every round the reference server answers.
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { buildServer, loadConfig } from "../../apps/server/dist/index.js";
import { startLocalAuthServer } from "../../infra/local/dist/index.js";

/** The methods that carry multi round-trip requests: only these are traced. */
const CARRIERS = new Set(["tools/call", "prompts/get", "resources/read"]);

// The server's PUBLIC_URL must be the URL the CLI calls (the protected resource metadata speaks for
// exactly that URL), so the port is chosen before the server starts.
async function freePort() {
  const probe = createServer();
  await new Promise((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(() => resolve()));
  return port;
}

/** What a round asked for, one short phrase per input request key. */
function describeRequests(inputRequests) {
  return Object.entries(inputRequests ?? {}).map(([key, request]) => {
    const params = request?.params ?? {};
    if (request?.method === "elicitation/create") {
      return params.mode === "url"
        ? { key, kind: "URL", text: `${key} (URL ${params.url})`, url: params.url }
        : { key, kind: "form", text: `${key} (form: "${params.message}")` };
    }
    if (request?.method === "sampling/createMessage")
      return { key, kind: "sampling", text: `${key} (sampling)` };
    if (request?.method === "roots/list") return { key, kind: "roots", text: `${key} (roots)` };
    return { key, kind: request?.method ?? "?", text: `${key} (${request?.method})` };
  });
}

/** The text a person reads in a final result: tool content, prompt messages or resource contents. */
function textOf(result) {
  const blocks = [
    ...(result.content ?? []),
    ...(result.messages ?? []).map((message) => message.content),
    ...(result.contents ?? []),
  ];
  return blocks
    .map((block) => (typeof block?.text === "string" ? block.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function targetOf(method, params) {
  if (method === "resources/read") return String(params.uri);
  return String(params.name);
}

/**
 * oidc-provider announces on start that it runs on an in-memory store with development sign-in pages;
 * the demo says that itself, so only those two notices are dropped, and only while it starts.
 */
async function quietly(start) {
  const original = console.warn;
  console.warn = (...args) => {
    const text = args.map(String).join(" ");
    if (
      /oidc-provider WARNING: a quick start development-only (in-memory adapter|feature devInteractions)/.test(
        text,
      )
    )
      return;
    original(...args);
  };
  try {
    return await start();
  } finally {
    console.warn = original;
  }
}

/**
 * Starts both servers. `onRound` is called once per round with what the client sent and what the
 * server answered, before the answer leaves, so the line shows up before the CLI reacts to it.
 */
export async function startStack({ onRound }) {
  const { version } = JSON.parse(
    await readFile(new URL("../../apps/server/package.json", import.meta.url), "utf8"),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const authorization = await quietly(() => startLocalAuthServer({ resource: url }));
  let server;
  try {
    server = await buildServer(
      loadConfig(
        {
          HOST: "127.0.0.1",
          PORT: String(port),
          PUBLIC_URL: url,
          OAUTH_ISSUER: authorization.issuer,
          // No key source: an ephemeral request-state key, which is enough while this process lives.
          LOG_LEVEL: "silent",
        },
        version,
      ),
      { logStream: { write: () => true } },
    );
  } catch (error) {
    await authorization.close();
    throw error;
  }

  let round = 0;
  server.mcp.use(async (request, next) => {
    if (!CARRIERS.has(request.method)) return next();
    const params = request.params ?? {};
    const answered = Object.keys(params.inputResponses ?? {});
    // A request with neither answers nor state starts a flow; anything else continues one.
    if (answered.length === 0 && params.requestState === undefined) round = 0;
    round += 1;
    const result = await next();
    const inputRequired = result.resultType === "input_required";
    onRound({
      round,
      method: request.method,
      target: targetOf(request.method, params),
      answered,
      withState: params.requestState !== undefined,
      inputRequired,
      asks: inputRequired ? describeRequests(result.inputRequests) : [],
      stateOnly: inputRequired && Object.keys(result.inputRequests ?? {}).length === 0,
      isError: result.isError === true,
      resultText: inputRequired ? undefined : textOf(result),
    });
    return result;
  });

  const origin = await server.listen();
  await server.keyring.ready;
  return {
    url,
    origin,
    issuer: authorization.issuer,
    async close() {
      await server.close().catch(() => {});
      await authorization.close().catch(() => {});
    },
  };
}
