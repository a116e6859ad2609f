import {
  Client,
  type ElicitParams,
  type ElicitResult,
  type InputResponses,
  isInputRequiredResult,
  type Tool,
} from "@roundtrip/sdk";
import { HttpStatusError, SkillIntegrityError } from "@roundtrip/sdk/client";
import {
  discoverProtectedResource,
  type OAuthClientOptions,
  oauthClientProvider,
} from "@roundtrip/sdk/oauth-client";
import { silentLogger } from "@roundtrip/sdk/protocol";

/**
 * The client the official conformance suite drives: `conformance client --command "<this>"` starts it
 * once per scenario with the scenario's mock server URL as the last argument and the scenario's name
 * in MCP_CONFORMANCE_SCENARIO. Each branch does what its scenario expects a client to do, using
 * nothing but the public API of @roundtrip/sdk.
 */

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if (!url?.startsWith("http")) {
  console.error("usage: fixture.ts <server url> (the conformance suite passes it last)");
  process.exit(2);
}

/**
 * Accepts every form with the values its schema suggests, its defaults first (SEP-1034: a client
 * applies the defaults of fields the user leaves alone); a conformance run has no user to ask.
 */
function elicit(params: ElicitParams): ElicitResult {
  if (params.mode === "url") return { action: "accept" };
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [name, property] of Object.entries(params.requestedSchema.properties)) {
    const { default: suggested, enum: choices } = property as { default?: unknown; enum?: unknown[] };
    if (isFormValue(suggested)) content[name] = suggested;
    else if (typeof choices?.[0] === "string") content[name] = choices[0];
    else if (property.type === "boolean") content[name] = true;
    else if (property.type === "number" || property.type === "integer") content[name] = 1;
    else if (property.type === "string") content[name] = "conformance";
  }
  return { action: "accept", content };
}

function isFormValue(value: unknown): value is string | number | boolean | string[] {
  return (
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean" ||
    (Array.isArray(value) && value.every((item) => typeof item === "string"))
  );
}

/** What a scenario hands the client in MCP_CONFORMANCE_CONTEXT: tool calls, or pre-registered credentials. */
interface ScenarioContext {
  toolCalls?: ToolCall[];
  client_id?: string;
  client_secret?: string;
  /** A private_key_jwt client's PKCS#8 key and its JWS algorithm. */
  private_key_pem?: string;
  signing_algorithm?: string;
  /** The enterprise IdP of auth/enterprise-managed-authorization, and the user's ID token from it. */
  idp_issuer?: string;
  idp_token_endpoint?: string;
  idp_client_id?: string;
  idp_id_token?: string;
  /** The workload's identity token of auth/wif-jwt-bearer. */
  valid_jwt?: string;
}

interface ToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

const context: ScenarioContext = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");

/** The client metadata document URL the auth scenarios expect a CIMD-capable client to use as client_id. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

/**
 * The suite's authorization servers redirect straight back with the code, no sign-in page in between:
 * following the authorization URL once, without following the redirect, yields the callback's parameters.
 */
async function followAuthorization(authorizationUrl: URL): Promise<URLSearchParams> {
  const response = await fetch(authorizationUrl, { redirect: "manual" });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (!location) {
    throw new Error(`the authorization endpoint answered HTTP ${response.status} without redirecting back`);
  }
  return new URL(location, authorizationUrl).searchParams;
}

/**
 * The scenarios hand over client credentials without saying whose they are; the SDK uses them only with
 * the issuer it is configured with, so the fixture takes the one the scenario's server names, found
 * from the challenge of an unauthenticated request, before the credentials go anywhere.
 */
async function namedIssuer(server: string): Promise<string> {
  const probe = new Client(server, { logger: silentLogger });
  try {
    await probe.connect();
  } catch (error) {
    if (!(error instanceof HttpStatusError && error.status === 401)) throw error;
    const found = await discoverProtectedResource(server, error.headers.get("www-authenticate"));
    return found.metadata.authorization_servers[0] as string;
  } finally {
    await probe.close();
  }
  throw new Error(`${server} did not ask for credentials, yet the scenario gave client credentials`);
}

/** The OAuth client of the auth/* scenarios; the other scenarios never see a 401. */
async function authOptions(server: string): Promise<OAuthClientOptions | undefined> {
  if (!scenario.startsWith("auth/")) return undefined;
  const credentials = {
    ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
    ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
    ...(context.private_key_pem === undefined
      ? {}
      : { clientPrivateKey: { key: context.private_key_pem, alg: context.signing_algorithm ?? "ES256" } }),
    // A secret, a key or an assertion is only ever presented to the issuer it is configured for.
    ...(context.client_secret === undefined &&
    context.private_key_pem === undefined &&
    scenario !== "auth/enterprise-managed-authorization" &&
    scenario !== "auth/wif-jwt-bearer"
      ? {}
      : { clientIssuer: await namedIssuer(server) }),
  };
  if (scenario.startsWith("auth/client-credentials")) return { grant: "client_credentials", ...credentials };
  if (scenario === "auth/enterprise-managed-authorization") {
    const {
      idp_issuer: idpIssuer,
      idp_token_endpoint: idpTokenEndpoint,
      idp_client_id: idpClientId,
    } = context;
    const idToken = context.idp_id_token;
    if (!idpIssuer || !idpClientId || !idToken) throw new Error(`${scenario} gave no identity provider`);
    return {
      grant: "identity_assertion",
      ...credentials,
      identityAssertion: {
        idpIssuer,
        idpClientId,
        idToken: () => idToken,
        ...(idpTokenEndpoint ? { idpTokenEndpoint } : {}),
      },
    };
  }
  if (scenario === "auth/wif-jwt-bearer") {
    const workloadToken = context.valid_jwt;
    if (!workloadToken) throw new Error(`${scenario} gave no workload identity token`);
    return { grant: "workload_identity", ...credentials, workloadIdentity: { token: () => workloadToken } };
  }
  return {
    grant: "authorization_code",
    ...credentials,
    // The DPoP scenarios' servers require proof-of-possession tokens (RFC 9449).
    ...(scenario.startsWith("auth/dpop") ? { dpop: true } : {}),
    clientMetadataUrl: CLIENT_METADATA_URL,
    clientMetadata: { client_name: "roundtrip-conformance-client" },
    redirect: { redirectUri: "http://127.0.0.1:3000/callback", authorize: followAuthorization },
  };
}

const auth = await authOptions(url);

const client = new Client(url, {
  ...(auth ? { http: { auth: oauthClientProvider(auth) } } : {}),
  info: { name: "roundtrip-conformance-client", version: "0.1.0" },
  logger: silentLogger,
  // The suite bounds each scenario itself; on a loaded machine the client's own wall-clock bounds
  // would fail scenarios for slowness, which is not what they test.
  requestTimeoutMs: 0,
  connectTimeoutMs: 0,
  onElicit: elicit,
  onSample: () => ({ role: "assistant", content: { type: "text", text: "conformance" }, model: "fixture" }),
  onListRoots: () => ({ roots: [{ uri: "file:///conformance", name: "conformance" }] }),
});

/** Arguments that satisfy a tool's required properties, from their declared types. */
function sampleArguments(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] =
      type === "integer" || type === "number"
        ? 1
        : type === "boolean"
          ? true
          : type === "object"
            ? {}
            : "us-west1";
  }
  return args;
}

async function allTools(): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools({ cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function contextToolCalls(): ToolCall[] {
  return context.toolCalls ?? [];
}

/** Lists the tools and calls each: the auth scenarios' servers refuse, then step up, on these calls. */
async function listAndCallEveryTool(): Promise<void> {
  for (const tool of await allTools()) await client.callTool(tool.name, sampleArguments(tool));
}

/**
 * Loads the first listed skill as a host would once it decides to use it: SKILL.md first, verified,
 * then its other files. A file that fails verification stops the load, and its content is not used.
 */
async function loadFirstSkill(): Promise<void> {
  const [skill] = (await client.listSkills()).skills;
  if (!skill || !Array.isArray(skill.resources)) return;
  try {
    await client.readSkillFile(skill);
    for (const file of skill.resources) {
      if (file.uri !== skill.uri) await client.readSkillFile(skill, file.uri);
    }
  } catch (error) {
    if (!(error instanceof SkillIntegrityError)) throw error;
    console.error(error.message);
  }
}

const scenarios: Record<string, () => Promise<void>> = {
  // Listing skills reads none of their files: a host reads them only when it loads a skill.
  async "sep-2640-client-no-prefetch"() {
    await client.listSkills();
  },
  "sep-2640-client-verify-digest": loadFirstSkill,
  "sep-2640-client-verify-size": loadFirstSkill,
  "sep-2640-client-verify-frontmatter": loadFirstSkill,

  async tools_call() {
    await allTools();
    await client.callTool("add_numbers", { a: 5, b: 3 });
  },

  async "request-metadata"() {
    await allTools();
  },

  async "sep-2322-client-request-state"() {
    await allTools();
    // One flow driven by hand, with an unrelated call between its rounds: that call must carry
    // neither the flow's answers nor its requestState.
    const round = await client.manualRounds.callTool(
      "test_mrtr_echo_state",
      {},
      { allowInputRequired: true },
    );
    await client.callTool("test_mrtr_unrelated", {});
    if (isInputRequiredResult(round)) {
      const inputResponses: InputResponses = Object.fromEntries(
        Object.entries(round.inputRequests ?? {}).map(([key]) => [
          key,
          { action: "accept", content: { confirmed: true } },
        ]),
      );
      await client.manualRounds.callTool(
        "test_mrtr_echo_state",
        {},
        { allowInputRequired: true, inputResponses, requestState: round.requestState },
      );
    }
    await client.callTool("test_mrtr_no_state", {});
    await client.callTool("test_mrtr_no_result_type", {});
  },

  async "http-standard-headers"() {
    for (const tool of await allTools()) await client.callTool(tool.name, sampleArguments(tool));
    const { resources } = await client.listResources();
    for (const resource of resources) await client.readResource(resource.uri);
    const { prompts } = await client.listPrompts();
    for (const prompt of prompts) await client.getPrompt(prompt.name);
  },

  async "http-custom-headers"() {
    await allTools();
    for (const call of contextToolCalls()) await client.callTool(call.name, call.arguments);
  },

  async "http-invalid-tool-headers"() {
    // listTools leaves out the tools whose x-mcp-header annotations are invalid.
    for (const tool of await allTools()) await client.callTool(tool.name, sampleArguments(tool));
  },

  async "json-schema-ref-no-deref"() {
    await allTools();
  },

  async "elicitation-sep1034-client-defaults"() {
    await allTools();
    await client.callTool("test_client_elicitation_defaults", {});
  },

  async "sse-retry"() {
    await allTools();
    await client.callTool("test_reconnection", {});
  },

  async "json-schema-2020-12-preservation"() {
    const tools = await allTools();
    const focal = tools.find((tool) => tool.name !== "json_schema_echo");
    if (focal) await client.callTool("json_schema_echo", { schema: focal.inputSchema });
  },
};

try {
  const run = scenarios[scenario];
  if (run) await run();
  else if (scenario.startsWith("auth/")) await listAndCallEveryTool();
  else await allTools();
} catch (error) {
  // fetch failures say why only in their cause (a reset connection, a refused one).
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
  console.error(
    `${scenario}: ${error instanceof Error ? `${error.name}: ${error.message}${cause}` : String(error)}`,
  );
  process.exitCode = 1;
} finally {
  await client.close();
}
