import { Client, type StdioServerParameters } from "@roundtrip/sdk/client";
import type { TokenStore } from "@roundtrip/sdk/oauth-client";
import { type Implementation, silentLogger, TASKS_EXTENSION } from "@roundtrip/sdk/protocol";
import { type ClientAuth, clientAuth } from "./auth/client-auth.js";
import { type LoginProfile, LoginProfiles } from "./auth/login-profiles.js";
import { FileTokenStore } from "./auth/token-store.js";
import type { Asker } from "./elicitation/asker.js";
import type { Terminal } from "./terminal.js";
import { CLIENT_VERSION } from "./version.js";

/**
 * The command line is run by the system shell, so quoting works as the person typed it; `exec` makes the
 * server the shell's replacement, so closing the connection stops the server itself.
 */
function stdioServer(command: string): StdioServerParameters {
  return { command: "/bin/sh", args: ["-c", `exec ${command}`], stderr: "inherit" };
}

export interface Connection {
  readonly client: Client;
  readonly server: string;
  readonly auth: ClientAuth;
  /** Who asks, for every question shown: known once the server has answered server/discover or initialize. */
  asker(): Asker;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The URL, or the label of a stdio server. */
  server: string;
  /** A command line to run as a stdio server instead of calling `server`. */
  stdio?: string;
  home: string;
  terminal: Terminal;
  browser: boolean;
  /** `roundtrip login` signs in with the profile it is trying and tokens it keeps aside until it succeeds. */
  login?: { profile: LoginProfile; store: TokenStore };
  /** Declare the tasks extension (default true): a server may then run a call as a task. */
  tasks?: boolean;
}

/**
 * An SDK client for one server, of either protocol era (the SDK negotiates it). It declares every
 * input capability (form and URL elicitation, sampling, roots) because this CLI answers them all; the
 * flow driver answers 2026-07-28 rounds itself and registers the callbacks a 2025-era session needs.
 */
export async function connect(options: ConnectOptions): Promise<Connection> {
  // A stdio server takes its credentials from its environment, as MCP says: no login, no token.
  const auth: ClientAuth =
    options.stdio === undefined
      ? await clientAuth({
          server: options.server,
          profile: options.login?.profile ?? (await new LoginProfiles(options.home).get(options.server)),
          store: options.login?.store ?? new FileTokenStore(options.home),
          terminal: options.terminal,
          browser: options.browser,
          signingIn: options.login !== undefined,
        })
      : { provider: undefined, close: async () => {} };
  const target = options.stdio === undefined ? options.server : stdioServer(options.stdio);
  const client = new Client(target, {
    info: { name: "roundtrip-cli", title: "roundtrip CLI", version: CLIENT_VERSION },
    // The tasks extension too, unless refused: a server may run a call as a task, followed, detached
    // and resumed here.
    capabilities: {
      elicitation: { form: {}, url: {} },
      sampling: {},
      roots: {},
      ...(options.tasks === false ? {} : { extensions: { [TASKS_EXTENSION]: {} } }),
    },
    logger: silentLogger,
    // The flow driver bounds the rounds itself, leaving out the polls for a page being finished.
    inputRequiredMaxRounds: Number.MAX_SAFE_INTEGER,
    http: auth.provider ? { auth: auth.provider } : {},
  });
  return {
    client,
    server: options.server,
    auth,
    asker: () => ({ info: client.serverInfo as Implementation | undefined, serverUrl: options.server }),
    async close() {
      await client.close();
      await auth.close();
    },
  };
}
