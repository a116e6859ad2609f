// The servers of the demo, in this process: the development authorization server and the reference
// server trusting it, both on loopback, with a trace of every round the reference server answers. With
// the fleet's services (KMS emulator and Redis) it runs two instances of the reference server behind
// one URL, which unwrap the same KMS-wrapped key and share one Redis.
import { createServer } from "node:net";
import { startLocalAuthServer } from "@roundtrip/local-auth";
import {
  type CallToolResult,
  type GetPromptResult,
  isInputRequiredResult,
  type ReadResourceResult,
} from "@roundtrip/sdk";
import {
  type CarrierMethod,
  carrierTarget,
  type InputRequests,
  isCarrierMethod,
} from "@roundtrip/sdk/protocol";
import type { ResultObject } from "@roundtrip/sdk/server";
import { buildServer, loadConfig, packageVersion } from "@roundtrip/server";
import { DEPLOYER_AUDIENCE, type DeployerProcess, startDeployerProcess } from "./deployer-process.js";
import type { FleetServices } from "./fleet-services.js";
import { emulatorClientConfig } from "./fleet-services.js";
import { type RedisRelay, startRedisRelay } from "./redis-relay.js";
import { INSTANCE_HEADER, type Router, startRouter } from "./router.js";
import { tagInstance } from "./trace-collector.js";

/** One thing a round asked for, under its input request key. */
export interface Ask {
  key: string;
  kind: string;
  /** A short phrase for the trace line. */
  text: string;
  /** The page to visit, for a URL elicitation. */
  url?: string;
}

/** One round of a multi round-trip request, as the reference server saw and answered it. */
export interface Round {
  /** The instance that answered it. */
  instance: string;
  /** 1 for the request that starts a flow, then one more for each retry. */
  round: number;
  method: CarrierMethod;
  /** The tool or prompt name, or the resource URI. */
  target: string;
  /** The input request keys the request answered. */
  answered: string[];
  withState: boolean;
  inputRequired: boolean;
  asks: Ask[];
  /** An InputRequiredResult with nothing to answer: only requestState, so the client retries. */
  stateOnly: boolean;
  isError: boolean;
  /** The text of the final result; undefined while the server still asks. */
  resultText: string | undefined;
}

export interface Stack {
  /** The reference server's MCP endpoint, which is also its PUBLIC_URL. */
  url: string;
  origin: string;
  /** The development authorization server. */
  issuer: string;
  /** The instances behind the URL: A and B with the fleet's services, A alone without. */
  instances: readonly string[];
  /** What each instance logged about its request-state keys when it started. */
  keyLines: readonly string[];
  /** Sends everything from now on to one instance. */
  route(instance: string): void;
  /**
   * The instances that answered the rounds sent through the URL since the last call, oldest first, as
   * each named itself in its response header.
   */
  answered(): string[];
  /** Sends the last completing round of `target` again, exactly as it was sent, to `instance`. */
  replayLastCompletion(
    target: string,
    instance: string,
  ): Promise<{ status: number; text: string; answeredBy: string | undefined }>;
  /** How many times the instances together logged `msg`, with `fields` if given. */
  logged(msg: string, fields?: Record<string, unknown>): number;
  /** The instances that logged `msg` with `fields`, once per line, oldest first within each. */
  loggedBy(msg: string, fields: Record<string, unknown>): string[];
  /**
   * What the death of an instance's process does to the rest of the fleet: its listener and every
   * connection it has, to clients and to Redis, drop at once, and none is closed politely. Fleet only.
   */
  crash(instance: string): Promise<void>;
  /** Starts a crashed instance again, on its port and with its log, as a new process would. */
  restart(instance: string): Promise<void>;
  close(): Promise<void>;
}

// The server's PUBLIC_URL must be the URL the CLI calls (the protected resource metadata speaks for
// exactly that URL), so the port is chosen before the server starts.
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", resolve);
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no TCP port to probe with");
  return address.port;
}

/** What a round asked for, one short phrase per input request key. */
function describeRequests(inputRequests: InputRequests | undefined): Ask[] {
  return Object.entries(inputRequests ?? {}).map(([key, request]): Ask => {
    switch (request.method) {
      case "elicitation/create": {
        const { params } = request;
        return params.mode === "url"
          ? { key, kind: "URL", text: `${key} (URL ${params.url})`, url: params.url }
          : { key, kind: "form", text: `${key} (form: "${params.message}")` };
      }
      case "sampling/createMessage":
        return { key, kind: "sampling", text: `${key} (sampling)` };
      case "roots/list":
        return { key, kind: "roots", text: `${key} (roots)` };
      default: {
        // The server's own results are not validated on their way out: say what it sent.
        const method = String((request as { method?: unknown }).method);
        return { key, kind: method, text: `${key} (${method})` };
      }
    }
  });
}

/** What a task asks, from an answer to tasks/get as the instance sent it (JSON, or server-sent events). */
function taskAsks(body: string, contentType: string): Ask[] {
  const messages = contentType.includes("text/event-stream")
    ? body.split("\n").flatMap((line) => (line.startsWith("data:") ? [line.slice(5)] : []))
    : [body];
  return messages.flatMap((message) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return [];
    }
    const result = (parsed as { result?: { inputRequests?: InputRequests } } | null)?.result;
    return describeRequests(result?.inputRequests);
  });
}

/** The text a person reads in a final result: tool content, prompt messages or resource contents. */
function textOf(result: ResultObject): string {
  const { content } = result as Partial<CallToolResult>;
  const { messages } = result as Partial<GetPromptResult>;
  const { contents } = result as Partial<ReadResourceResult>;
  const blocks: readonly unknown[] = [
    ...(content ?? []),
    ...(messages ?? []).map((message) => message.content),
    ...(contents ?? []),
  ];
  return blocks
    .map((block) => {
      const text = (block as { text?: unknown } | undefined)?.text;
      return typeof text === "string" ? text : "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** The keys of an object, or none when the value is no object. */
function keysOf(value: unknown): string[] {
  return typeof value === "object" && value !== null ? Object.keys(value) : [];
}

/**
 * oidc-provider announces on start that it runs on an in-memory store with development sign-in pages;
 * the demo says that itself, so only those two notices are dropped, and only while it starts.
 */
async function quietly<T>(start: () => Promise<T>): Promise<T> {
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
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

interface Instance {
  name: string;
  port: number;
  server: Awaited<ReturnType<typeof buildServer>>;
  lines: Record<string, unknown>[];
  /** Its own way to the fleet's Redis, which a crash cuts. */
  relay: RedisRelay | undefined;
}

/** What a crashed instance leaves in this process gets this long to stop; it can reach nothing anyway. */
const REMAINS_STOP_MS = 3_000;

/** How long the fleet's deploy rollout takes. */
const FLEET_ROLLOUT_MS = 8_000;

function matches(line: Record<string, unknown>, msg: string, fields: Record<string, unknown>): boolean {
  return line.msg === msg && Object.entries(fields).every(([key, value]) => line[key] === value);
}

/** Waits for `stopping` at most REMAINS_STOP_MS, never failing. */
function bounded(stopping: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, REMAINS_STOP_MS);
  });
  return Promise.race([stopping.catch(() => {}), late]).then(() => clearTimeout(timer));
}

/** The headers a replay must carry to be the same request: the token and the request's metadata. */
const REPLAYED_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
];

/**
 * Starts the servers. `onRound` is called once per round with what the client sent and what the
 * server answered, before the answer leaves, so the line shows up before the CLI reacts to it.
 */
export async function startStack({
  onRound,
  onTaskAsks,
  fleet,
}: {
  onRound: (round: Round) => void;
  /** Called with what a task asks, each time tasks/get reports it through the balancer. */
  onTaskAsks?: (asks: Ask[]) => void;
  fleet?: FleetServices;
}): Promise<Stack> {
  const version = await packageVersion();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const authorization = await quietly(() =>
    startLocalAuthServer({
      resource: url,
      downstreams: [{ audience: DEPLOYER_AUDIENCE, clients: ["mcp-server-exchange"], scopes: [] }],
    }),
  );
  let deployer: DeployerProcess;
  try {
    deployer = await startDeployerProcess(authorization.issuer);
  } catch (error) {
    await authorization.close();
    throw error;
  }
  const instances: Instance[] = [];
  /** The id of the request that completed each target last: the balancer has its bytes. */
  const completions = new Map<string, unknown>();
  let round = 0;
  let router: Router | undefined;

  /** What a crashed instance left behind in this process, stopping. */
  const remains: Promise<unknown>[] = [];
  /** The crashed instances, whose relays refuse every connection until the end. */
  const cut: Instance[] = [];
  const start = async (
    name: string,
    instancePort: number,
    settings: Record<string, string>,
    lines: Record<string, unknown>[] = [],
  ): Promise<Instance> => {
    const relay = fleet ? await startRedisRelay(fleet.redisUrl) : undefined;
    const env = relay ? { ...settings, REDIS_URL: relay.url } : settings;
    try {
      return await build(name, instancePort, env, lines, relay);
    } catch (error) {
      await relay?.close();
      throw error;
    }
  };
  const build = async (
    name: string,
    instancePort: number,
    env: Record<string, string>,
    lines: Record<string, unknown>[],
    relay: RedisRelay | undefined,
  ): Promise<Instance> => {
    const logStream = {
      write(chunk: string) {
        for (const line of chunk.split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line));
        return true;
      },
    };
    const server = await buildServer(
      loadConfig(
        {
          HOST: "127.0.0.1",
          PORT: String(instancePort),
          PUBLIC_URL: url,
          OAUTH_ISSUER: authorization.issuer,
          // The deploy tool rolls releases out through the deployer, with tokens exchanged for the caller.
          DEPLOYER_URL: deployer.url,
          DEPLOYER_AUDIENCE,
          OAUTH_EXCHANGE_CLIENT_ID: "mcp-server-exchange",
          OAUTH_EXCHANGE_CLIENT_SECRET: "mcp-server-exchange-secret",
          // Each instance says who it is on every response, which is how the demo names who answered.
          INSTANCE_NAME: name,
          ...env,
        },
        version,
      ),
      { logStream, ...(fleet ? { kmsClientConfig: emulatorClientConfig(fleet.kms.endpoint) } : {}) },
    );
    const instance: Instance = { name, port: instancePort, server, lines, relay };
    server.mcp.use(async (request, next) => {
      const { method } = request;
      if (!isCarrierMethod(method)) return next();
      tagInstance(name);
      const params = request.params ?? {};
      const answered = keysOf(params.inputResponses);
      // A request with neither answers nor state starts a flow; anything else continues one.
      if (answered.length === 0 && params.requestState === undefined) round = 0;
      round += 1;
      const result = await next();
      const inputRequired = isInputRequiredResult(result);
      const inputRequests = inputRequired ? result.inputRequests : undefined;
      const target = carrierTarget(method, params) ?? "(no target)";
      if (!inputRequired) completions.set(target, request.context.requestId);
      onRound({
        instance: name,
        round,
        method,
        target,
        answered,
        withState: params.requestState !== undefined,
        inputRequired,
        asks: describeRequests(inputRequests),
        stateOnly: inputRequired && keysOf(inputRequests).length === 0,
        isError: result.isError === true,
        resultText: inputRequired ? undefined : textOf(result),
      });
      return result;
    });
    await server.listen();
    await server.keyring.ready;
    return instance;
  };

  const settings: Record<string, string> = fleet
    ? {
        SERVER_NAME: "roundtrip-demo",
        KMS_WRAPPED_KEYS: fleet.kms.wrappedKey,
        KMS_KEY_ID: fleet.kms.keyAlias,
        KMS_ENDPOINT: fleet.kms.endpoint,
        LOG_LEVEL: "info",
        // Long enough for the task step to strike in the middle of a rollout on a busy machine, and a
        // dead instance's task taken up by another within seconds rather than the default 30.
        DEPLOY_ROLLOUT_MS: String(FLEET_ROLLOUT_MS),
        TASK_LOCK_SECONDS: "3",
      }
    : // No key source: an ephemeral request-state key, which is enough while this process lives.
      { LOG_LEVEL: "info" };
  try {
    for (const name of fleet ? ["A", "B"] : ["A"]) {
      instances.push(await start(name, await freePort(), settings));
    }
    // In front of one instance too, so every run names who answered each round the same way.
    router = await startRouter(
      port,
      new Map(instances.map((instance) => [instance.name, instance.port])),
      (body, contentType) => {
        const asks = taskAsks(body, contentType);
        if (asks.length > 0) onTaskAsks?.(asks);
      },
    );
  } catch (error) {
    for (const instance of instances) {
      await instance.server.close().catch(() => {});
      await instance.relay?.close();
    }
    await deployer.close();
    await authorization.close();
    throw error;
  }

  const byName = (name: string) => {
    const instance = instances.find((candidate) => candidate.name === name);
    if (!instance) throw new Error(`no instance ${name}`);
    return instance;
  };
  return {
    url,
    origin: `http://127.0.0.1:${port}`,
    issuer: authorization.issuer,
    instances: instances.map((instance) => instance.name),
    keyLines: instances.flatMap((instance) =>
      instance.lines
        .filter((line) => typeof line.keySource === "string" && typeof line.msg === "string")
        .map((line) => `instance ${instance.name}: ${line.msg}${line.kmsKeyId ? ` (${line.kmsKeyId})` : ""}`),
    ),
    route(name) {
      router?.use(name);
    },
    answered() {
      return router?.answered() ?? [];
    },
    async replayLastCompletion(target, name) {
      // What the balancer forwarded, not what the handler saw: the request-state boundary has opened
      // the state by then, and only the sealed original is a replay.
      const post = completions.has(target) ? router?.post(completions.get(target)) : undefined;
      if (!post) throw new Error(`no completed round of ${target} went through the balancer`);
      const headers = Object.fromEntries(
        REPLAYED_HEADERS.flatMap((name) => (post.headers[name] ? [[name, post.headers[name]]] : [])),
      );
      const response = await fetch(`http://127.0.0.1:${byName(name).port}/mcp`, {
        method: "POST",
        headers,
        body: post.body,
      });
      return {
        status: response.status,
        text: await response.text(),
        answeredBy: response.headers.get(INSTANCE_HEADER) ?? undefined,
      };
    },
    logged(msg, fields = {}) {
      return instances.reduce(
        (count, instance) => count + instance.lines.filter((line) => matches(line, msg, fields)).length,
        0,
      );
    },
    loggedBy(msg, fields) {
      return instances.flatMap((instance) =>
        instance.lines.filter((line) => matches(line, msg, fields)).map(() => instance.name),
      );
    },
    async crash(name) {
      const instance = byName(name);
      const http = instance.server.app.server;
      http.close();
      http.closeAllConnections();
      instance.relay?.cut();
      cut.push(instance);
      // Cut off from everything, what is left of it in this process stops in the background.
      remains.push(bounded(instance.server.close()));
    },
    async restart(name) {
      const index = instances.findIndex((candidate) => candidate.name === name);
      const dead = instances[index];
      if (dead === undefined) throw new Error(`no instance ${name}`);
      instances[index] = await start(name, dead.port, settings, dead.lines);
    },
    async close() {
      await router?.close().catch(() => {});
      for (const instance of instances) {
        // A crashed one not started again is stopping already, among the remains.
        if (!cut.includes(instance)) await instance.server.close().catch(() => {});
      }
      await Promise.all(remains);
      for (const instance of [...instances, ...cut]) await instance.relay?.close();
      await deployer.close().catch(() => {});
      await authorization.close().catch(() => {});
    },
  };
}
