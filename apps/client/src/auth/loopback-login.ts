import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import oauth2Plugin, { type OAuth2Namespace } from "@fastify/oauth2";
import { confirm } from "@inquirer/prompts";
import Fastify, { type FastifyRequest } from "fastify";
import { highlightHost, openInBrowser } from "../browser.js";
import { CliError, ExitCode } from "../exit-codes.js";
import { promptContext } from "../prompt-context.js";
import type { Terminal } from "../terminal.js";

/** The path of the redirect URI; the dev authorization server registers http://127.0.0.1/callback, any port. */
export const CALLBACK_PATH = "/callback";
/** Where the person's browser starts: it sets the state cookie, then sends the browser on to sign in. */
export const START_PATH = "/login";
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const STATE_COOKIE = "roundtrip-login-state";
/** These the plugin writes itself; every other parameter of the SDK's URL travels as callbackUriParams. */
const PLUGIN_PARAMS = new Set(["response_type", "client_id", "redirect_uri", "scope", "state"]);

declare module "fastify" {
  interface FastifyInstance {
    roundtripLogin: OAuth2Namespace;
  }
}

export interface LoopbackLoginOptions {
  terminal: Terminal;
  /** false with --no-browser: the URL is printed and never opened. */
  browser: boolean;
  /** `roundtrip login` is running: it may wait for a person even without a terminal, given --no-browser. */
  signingIn: boolean;
  /** 0 (default) picks a free port. */
  port?: number;
  timeoutMs?: number;
}

export interface LoopbackLogin {
  /** `http://127.0.0.1:<port>/callback`, the redirect URI the SDK sends. */
  readonly redirectUri: string;
  /** The SDK's AuthorizationRedirect.authorize: the browser step, resolved with the callback's parameters. */
  authorize(url: URL, signal?: AbortSignal): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/**
 * The browser step of authorization code + PKCE, served on a loopback port (RFC 8252).
 *
 * The SDK owns the protocol: it builds the authorization URL with its own state and PKCE challenge,
 * and checks state and iss and exchanges the code itself. @fastify/oauth2 is used for what it does
 * well on the browser side: the start path (`/login`) regenerates the SDK's URL through the plugin
 * (the SDK's state as the plugin's state, every other parameter, the PKCE challenge and `resource`
 * included, as callbackUriParams) and sets the plugin's state cookie, so the callback is accepted only
 * from the browser that started here. The plugin's own PKCE and token exchange are left off, since a
 * second verifier or a second redemption of the code would conflict with the SDK's.
 *
 * The socket is bound before the SDK needs the redirect URI; each sign-in gets a Fastify app built from
 * that sign-in's URL, plugged into the bound server through Fastify's serverFactory.
 */
export async function startLoopbackLogin(options: LoopbackLoginOptions): Promise<LoopbackLogin> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(404, { "content-type": "text/plain" }).end("No sign-in is in progress.\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          ExitCode.usage,
          `cannot listen on 127.0.0.1:${options.port ?? 0} for the sign-in callback (${error.code ?? error.message}); pick another --callback-port`,
        ),
      ),
    );
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const redirectUri = `${origin}${CALLBACK_PATH}`;

  return {
    redirectUri,
    async authorize(url, signal) {
      // Without a terminal nobody is there to sign in: waiting would only hang a script for minutes.
      // `login --no-browser` is the exception: the person opens the printed URL elsewhere.
      if (!options.terminal.interactive && !(options.signingIn && !options.browser)) {
        throw new CliError(
          ExitCode.auth,
          `signing in at ${url.origin} needs a person at a browser, and there is no terminal here: run \`roundtrip login\` in a terminal (or \`roundtrip login --no-browser\` and open the printed URL elsewhere), or sign in without a person: \`roundtrip login --client-id <id> --client-secret <secret>\`, or ROUNDTRIP_TOKEN`,
        );
      }
      const app = await signInApp(url, redirectUri, (h) => {
        handler = h;
        return server;
      });
      try {
        return await waitForCallback(app, url, `${origin}${START_PATH}`, options, signal);
      } finally {
        handler = undefined;
        await app.close();
      }
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface SignInApp {
  close(): Promise<void>;
  /** Resolved by the first callback from the browser that started at /login. */
  callback: Promise<URLSearchParams>;
}

async function signInApp(
  url: URL,
  redirectUri: string,
  serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server,
): Promise<SignInApp> {
  const state = url.searchParams.get("state");
  const clientId = url.searchParams.get("client_id");
  if (state === null || clientId === null) {
    throw new CliError(
      ExitCode.failure,
      "the authorization URL has no state or client_id; this client cannot sign in with it",
    );
  }
  const scope = url.searchParams.get("scope") ?? undefined;
  const extra: Record<string, string> = {};
  for (const [name, value] of url.searchParams) if (!PLUGIN_PARAMS.has(name)) extra[name] = value;

  let deliver: (params: URLSearchParams) => void = () => {};
  const callback = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  // The plugin's contract: the state it puts in the URL and the cookie, and the check of the callback.
  const checkState = (request: FastifyRequest) => {
    const query = request.query as Record<string, string | undefined>;
    return query.state === state && request.cookies[STATE_COOKIE] === state;
  };

  const app = Fastify({ logger: false, serverFactory });
  await app.register(oauth2Plugin, {
    name: "roundtripLogin",
    credentials: {
      // A public client: the plugin never calls the token endpoint here, so it holds no secret.
      client: { id: clientId, secret: "" },
      auth: { authorizeHost: url.origin, authorizePath: url.pathname, tokenHost: url.origin },
    },
    callbackUri: redirectUri,
    callbackUriParams: extra,
    ...(scope === undefined ? {} : { scope: scope.split(" ") }),
    generateStateFunction: () => state,
    checkStateFunction: checkState,
    redirectStateCookieName: STATE_COOKIE,
    cookie: { path: "/", httpOnly: true, sameSite: "lax", secure: false },
  });
  app.get(START_PATH, async (request, reply) => {
    const generated = new URL(await app.roundtripLogin.generateAuthorizationUri(request, reply));
    // The browser must land on exactly the URL the SDK will check the answer against.
    if (!sameAuthorizationUrl(generated, url)) {
      return reply
        .code(500)
        .type("text/plain")
        .send("The sign-in URL could not be reproduced; start the sign-in again.\n");
    }
    return reply.redirect(generated.href);
  });
  app.get(CALLBACK_PATH, async (request, reply) => {
    if (!checkState(request)) {
      return reply
        .code(400)
        .type("text/plain")
        .send(
          "This sign-in was not started from this browser, or it is stale. Start it again from the terminal.\n",
        );
    }
    reply.clearCookie(STATE_COOKIE, { path: "/" });
    deliver(new URLSearchParams(request.query as Record<string, string>));
    const failed = (request.query as Record<string, string | undefined>).error !== undefined;
    return reply
      .type("text/html; charset=utf-8")
      .send(
        `<!doctype html><title>roundtrip</title><p>${failed ? "Sign-in was not completed." : "Signed in."} You can close this tab and return to the terminal.</p>`,
      );
  });
  await app.ready();
  return { close: () => app.close(), callback };
}

function sameAuthorizationUrl(a: URL, b: URL): boolean {
  if (a.origin !== b.origin || a.pathname !== b.pathname) return false;
  const sorted = (u: URL) =>
    [...u.searchParams]
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join("&");
  return sorted(a) === sorted(b);
}

async function waitForCallback(
  app: SignInApp,
  authorizationUrl: URL,
  startUrl: string,
  options: LoopbackLoginOptions,
  signal?: AbortSignal,
): Promise<URLSearchParams> {
  const { terminal } = options;
  terminal.notice("");
  terminal.notice(`Sign in at ${highlightHost(authorizationUrl.origin, terminal.strong)} to continue.`);
  terminal.notice(`Open: ${startUrl}`);
  terminal.notice(terminal.dim(`  (it leads to ${authorizationUrl.href})`));
  if (options.browser && terminal.interactive) {
    const yes = await confirm(
      { message: "Open it in your browser?", default: true },
      promptContext(terminal, signal),
    );
    if (yes) await openInBrowser(startUrl);
  }
  terminal.notice(terminal.dim("Waiting for the sign-in to finish in the browser…"));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const bound = signal ? AbortSignal.any([signal, timeout]) : timeout;
  return new Promise<URLSearchParams>((resolve, reject) => {
    const onAbort = () =>
      reject(
        timeout.aborted
          ? new CliError(
              ExitCode.auth,
              `the sign-in did not finish within ${Math.round(timeoutMs / 1000)} s; run \`roundtrip login\` again`,
            )
          : bound.reason,
      );
    if (bound.aborted) return onAbort();
    bound.addEventListener("abort", onAbort, { once: true });
    app.callback.then((params) => {
      bound.removeEventListener("abort", onAbort);
      resolve(params);
    }, reject);
  });
}
