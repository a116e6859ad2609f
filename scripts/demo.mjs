// The Roundtrip demo: a sealed MCP 2026-07-28 server over real HTTP and the SDK client answering its
// elicitation, sampling and roots requests, round by round. Run it with `pnpm demo` after `pnpm build`.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import {
  Client,
  createMessage,
  createNodeHandler,
  elicitForm,
  inputRequired,
  listRoots,
  requestStateBoundary,
  Server,
  silentLogger,
} from "../packages/sdk/dist/index.js";
import { RequestStateSecurity } from "../packages/sealing/dist/index.js";

const say = (text) => console.log(text);

function buildServer() {
  const server = new Server({ name: "roundtrip-demo", version: "0.1.0" }, { logger: silentLogger });
  // One line seals every requestState: encrypted, bound to the request, the audience and the principal.
  server.use(
    requestStateBoundary(RequestStateSecurity.ephemeral(), {
      defaultAudience: server.name,
      logger: silentLogger,
    }),
  );
  server.onListTools(() => ({
    tools: [
      { name: "plan_trip", description: "Plans a trip with the user", inputSchema: { type: "object" } },
    ],
  }));
  server.onCallTool((_ctx, params) => {
    const step = params.requestState ? JSON.parse(params.requestState) : { step: 0 };
    const answers = params.inputResponses ?? {};
    if (step.step === 0) {
      // Round 1: two independent questions in one round.
      return inputRequired({
        inputRequests: {
          destination: elicitForm("Where would you like to go?", {
            type: "object",
            properties: { city: { type: "string", title: "City" }, nights: { type: "integer", minimum: 1 } },
            required: ["city", "nights"],
          }),
          workspace: listRoots(),
        },
        requestState: JSON.stringify({ step: 1 }),
      });
    }
    if (step.step === 1) {
      const form = answers.destination;
      if (form?.action !== "accept") return { content: [{ type: "text", text: "Trip planning cancelled." }] };
      const roots = answers.workspace?.roots ?? [];
      // Round 2: depends on round 1's answer, which travels in the sealed state.
      return inputRequired({
        inputRequests: {
          idea: createMessage({
            messages: [
              {
                role: "user",
                content: { type: "text", text: `One sentence: what to do in ${form.content.city}?` },
              },
            ],
            maxTokens: 60,
          }),
        },
        requestState: JSON.stringify({ step: 2, ...form.content, folder: roots[0]?.uri ?? "none" }),
      });
    }
    const idea = answers.idea?.content?.text ?? "(no idea)";
    return {
      content: [
        {
          type: "text",
          text: `${step.nights} nights in ${step.city}. Suggestion: ${idea} Itinerary saved to ${step.folder}.`,
        },
      ],
    };
  });
  return server;
}

const server = buildServer();
const handler = createNodeHandler(server);
const http = createServer((req, res) => void handler(req, res));
await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${http.address().port}/mcp`;
say(`Roundtrip demo server on ${url}\n`);

const client = new Client(url, {
  info: { name: "roundtrip-demo-client", version: "0.1.0" },
  logger: silentLogger,
  onElicit: (params, { round, server }) => {
    say(`  [round ${round}] ${server?.name} asks (elicitation): ${params.message} -> Lisbon, 3 nights`);
    return { action: "accept", content: { city: "Lisbon", nights: 3 } };
  },
  onListRoots: ({ round }) => {
    say(`  [round ${round}] roots/list -> ${pathToFileURL(process.cwd()).href}`);
    return { roots: [{ uri: pathToFileURL(process.cwd()).href, name: "workspace" }] };
  },
  onSample: (params, { round }) => {
    say(`  [round ${round}] sampling: ${params.messages[0].content.text}`);
    return {
      role: "assistant",
      content: { type: "text", text: "Ride tram 28 up to the castle at sunset." },
      model: "demo-model",
    };
  },
});

const discovered = await client.connect();
say(
  `Connected: ${client.serverInfo?.name}, protocol ${client.protocolVersion}, versions ${discovered.supportedVersions}`,
);

say("\nAutomatic loop (client.callTool):");
const result = await client.callTool("plan_trip", {});
say(`  result: ${result.content[0].text}`);

say("\nManual loop (client.session.callTool), showing the sealed requestState:");
const first = await client.session.callTool("plan_trip", {}, { allowInputRequired: true });
say(
  `  round 1: ${Object.keys(first.inputRequests).join(" + ")}; requestState ${first.requestState.slice(0, 24)}... (${first.requestState.length} chars, encrypted)`,
);
try {
  await client.session.callTool(
    "plan_trip",
    {},
    {
      allowInputRequired: true,
      inputResponses: {
        destination: { action: "accept", content: { city: "Oslo", nights: 1 } },
        workspace: { roots: [] },
      },
      requestState: `${first.requestState.slice(0, -2)}AA`,
    },
  );
} catch (error) {
  say(`  a tampered requestState is refused: ${error.code} ${error.message}`);
}

await client.close();
server.close();
await new Promise((resolve) => http.close(resolve));
say("\nDone.");
