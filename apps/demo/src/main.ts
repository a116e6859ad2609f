// The Roundtrip demo, `pnpm demo`: starts the development authorization server and the reference server
// on loopback, signs the `roundtrip` CLI in as alice, and walks through every example the server has,
// one CLI process per step, each run with -v so that the CLI itself prints a line for each round. On a terminal the person
// answers the forms and the sampling request; otherwise (or with --scripted) answers files do. The
// deploy approval is always given by this script, playing alice's browser on the server's page.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { styleText } from "node:util";
import { EXIT_CODE_MEANINGS, ExitCode, type ExitCodeValue } from "@roundtrip/client";
import { DevelopmentBrowser, firstPostForm, type VisitedPage } from "@roundtrip/local-auth";
import { BIN_FROM_REPOSITORY, type CliResult, commandLine, runCli, stopChildren } from "./cli.js";
import { type FleetServices, provisionFleetServices } from "./fleet-services.js";
import { redisAtRest } from "./redis-at-rest.js";
import { type Round, type Stack, startStack } from "./stack.js";

const USAGE = "usage: pnpm demo [--scripted]   (node apps/demo/bin/demo.js [--scripted])";
const flags = process.argv.slice(2);
if (flags.includes("-h") || flags.includes("--help")) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
for (const flag of flags) {
  if (flag !== "--scripted") {
    process.stderr.write(`demo: unknown option ${flag}\n${USAGE}\n`);
    process.exit(2);
  }
}
// The CLI asks a person only when its stdin and stderr are terminals, so the demo uses the same test.
const interactive = !flags.includes("--scripted") && Boolean(process.stdin.isTTY && process.stderr.isTTY);
// A scripted CLI run that takes longer than this is stuck, not slow.
const CLI_TIMEOUT_MS = 120_000;

// hasColors() honours NO_COLOR, FORCE_COLOR and TERM=dumb.
const colors = Boolean(process.stdout.isTTY && process.stdout.hasColors?.());
const paint = (format: Parameters<typeof styleText>[0], text: string) =>
  colors ? styleText(format, text) : text;
const say = (line = "") => process.stdout.write(`${line}\n`);
const note = (line: string) => say(paint("cyan", `  » ${line}`));

class DemoFailure extends Error {}
/** An unexpected error as a developer wants to see it: with its stack. */
const stackOf = (error: unknown) => (error instanceof Error ? (error.stack ?? String(error)) : String(error));
/** The person pressed Ctrl+C inside a prompt: the CLI had the terminal in raw mode, so only it saw it. */
class Interrupted extends Error {}

// ---------------------------------------------------------------------------------------------------
// Rounds, as the reference server sees them

let lastRound: Round | undefined;
/** Two instances behind one URL, on the KMS emulator and Redis; false when those cannot be had. */
let fleetRun = false;
/** Set by the round that asks for the deploy approval URL. */
let approvalUrl: string | undefined;
/** Interactive only: the approval started as soon as the URL was handed out; its error, if it failed. */
let backgroundApproval: Promise<unknown> | undefined;
/** Lines about that approval, held back while the CLI owns the terminal. */
const heldLines: string[] = [];

/** A result as one line of at most `max` characters. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The server's side of a round: the rounds themselves are the CLI's -v lines; this keeps what the steps need. */
function onRound(round: Round): void {
  lastRound = round;
  const url = round.asks.find((ask) => ask.key === "approval" && ask.url)?.url;
  if (url) {
    approvalUrl = url;
    if (interactive && backgroundApproval === undefined) {
      // Written before the answer leaves the server, so it lands above the CLI's prompt, not inside it.
      note("alice's browser opens that page now and approves it (its lines follow once the CLI is done)");
      backgroundApproval = approveAs(url, (line) => heldLines.push(line)).catch((error: unknown) => error);
    }
  }
}

/** Forgets the approval of an earlier deploy. A function, since onRound sets what it resets. */
function resetApproval(): void {
  approvalUrl = undefined;
  backgroundApproval = undefined;
  heldLines.length = 0;
}

// ---------------------------------------------------------------------------------------------------
// alice's browser

const alice = new DevelopmentBrowser("alice");

/** Opens the approval page as alice, signs in from its link, and presses Approve. */
async function approveAs(url: string, log: (line: string) => void): Promise<string | undefined> {
  const page = new URL(url);
  const release = page.pathname.split("/").pop();
  log(`alice opens ${page.href}`);
  const anonymous = await alice.visit(page.href, page.origin);
  const signIn = /href="([^"]*\/sign-in)"/.exec(anonymous.html)?.[1];
  if (anonymous.status !== 200 || signIn === undefined) {
    throw new DemoFailure(`the approval page ${page.href} offers no sign-in (HTTP ${anonymous.status})`);
  }
  log("signing in as alice on the development authorization server");
  const signedIn = await alice.visit(new URL(signIn, page).href, page.origin);
  const form = firstPostForm(signedIn.html);
  if (signedIn.status !== 200 || form === undefined) {
    throw new DemoFailure(
      `after signing in, ${signedIn.url.href} shows no Approve button (HTTP ${signedIn.status})`,
    );
  }
  const response = await alice.fetch(new URL(form.action, page), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form.fields),
  });
  const body = await response.text();
  if (response.status !== 200) {
    throw new DemoFailure(`approving ${release} failed: HTTP ${response.status} ${body.slice(0, 120)}`);
  }
  log(`alice pressed Approve: the server recorded ${release} as approved by its requester`);
  return release;
}

// ---------------------------------------------------------------------------------------------------
// The CLI

let cliEnvironment: NodeJS.ProcessEnv;

/** What an exit code says went wrong (apps/client/README.md); nothing for success or an unknown code. */
function exitMeaning(code: number | null): string | undefined {
  if (code === null || code === ExitCode.ok || !Object.hasOwn(EXIT_CODE_MEANINGS, code)) return undefined;
  return EXIT_CODE_MEANINGS[code as ExitCodeValue];
}

/** The commands that run rounds: each gets -v, so the CLI prints its rounds as a person would see them. */
const ROUND_COMMANDS = new Set(["call", "prompt", "read", "resume"]);

interface RoundtripOptions {
  /** The exit code that counts as success. */
  expect?: ExitCodeValue;
  /** Hands the CLI this terminal, for a person to answer its prompts. */
  person?: boolean;
  watch?: (stderr: string) => void;
}

/** A round the CLI's -v line says it received just now, not one a saved flow brought along. */
const LIVE_ROUND = /^⇄ round (\d+):/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape that starts a terminal colour
const COLOUR = /\u001b\[[0-9;]*m/g;

/**
 * The CLI's line for a round, then which instance answered that round, as the instance named itself
 * in its response (the demo's balancer reads the header on its way to the CLI, so it is known before
 * the CLI can print its line).
 */
function relay(line: string, answered: string[]): void {
  say(line);
  const round = LIVE_ROUND.exec(line.replace(COLOUR, ""))?.[1];
  if (round === undefined) return;
  const instance = answered.shift();
  note(
    instance === undefined || instance === "?"
      ? `no instance named itself for round ${round}`
      : `instance ${instance} answered round ${round}`,
  );
}

/** `roundtrip <args>`, shown as typed; fails the step unless it exits with `expect`. */
async function roundtrip(
  typed: string[],
  { expect = ExitCode.ok, person = false, watch }: RoundtripOptions = {},
): Promise<CliResult> {
  const args = ROUND_COMMANDS.has(typed[0] ?? "") ? [...typed, "-v"] : typed;
  say(paint("bold", `$ ${commandLine(args)}`));
  // Answers from an earlier run that printed no line for them (an error) must not name this run's rounds.
  stack?.answered();
  const answered: string[] = [];
  const run = runCli(args, {
    env: cliEnvironment,
    interactive: person,
    echo: (line) => {
      answered.push(...(stack?.answered() ?? []));
      relay(line, answered);
    },
    ...(watch ? { watch } : {}),
    ...(person ? {} : { timeoutMs: CLI_TIMEOUT_MS }),
  });
  const result = await run.exited;
  if (person) {
    // The CLI had the terminal, so its round lines could not be followed one by one: named after it.
    const instances = stack?.answered() ?? [];
    if (instances.length > 0)
      note(`this run's rounds were answered by instance ${instances.join(", then ")}`);
  }
  if (result.timedOut) {
    throw new DemoFailure(`\`${commandLine(args)}\` did not finish within ${CLI_TIMEOUT_MS / 1000} s`);
  }
  if (person && result.code === ExitCode.interrupted) throw new Interrupted();
  if (result.code !== expect) {
    const last = result.stderr.trim().split("\n").pop();
    const meaning = exitMeaning(result.code);
    throw new DemoFailure(
      `\`${commandLine(args)}\` exited with ${result.code ?? result.signal} instead of ${expect}` +
        (meaning ? ` (${meaning})` : "") +
        (last ? `: ${last}` : ""),
    );
  }
  return result;
}

/** In scripted mode, what the person would otherwise see on the screen must be there. */
function expectOutput(result: CliResult, pattern: RegExp, what: string): string | undefined {
  if (interactive) return undefined;
  const match = pattern.exec(result.stdout);
  if (!match) throw new DemoFailure(`expected ${what}, got: ${result.stdout.trim() || "(nothing)"}`);
  return match[0];
}

/** The outcome of the step's last round, as the server sent it. */
function lastResult(): string {
  return lastRound?.resultText ?? "";
}

// ---------------------------------------------------------------------------------------------------
// The steps

let answersDir: string;

/** Scripted answers: one file per step, keyed by the input request keys the server asks under. */
async function answers(name: string, content: Record<string, unknown>): Promise<string[]> {
  if (interactive) return [];
  const file = join(answersDir, `${name}.json`);
  await writeFile(file, `${JSON.stringify(content, null, 2)}\n`);
  note(`answers from ${file}: ${JSON.stringify(content)}`);
  return ["--answers", file];
}

const scripted = (...args: string[]) => (interactive ? [] : args);

/** What the summarize step sends, and what the answers file has the client's model reply. */
const SUMMARIZED_TEXT =
  "Roundtrip is a reference platform for MCP multi round-trip requests: a server answers a call " +
  "with the questions it needs answered plus a sealed requestState, and the client retries the " +
  "same call with the answers, so no connection has to stay open in between.";
const SUMMARY_ANSWER =
  "Roundtrip lets an MCP server ask its client for input mid-call and resume from sealed state.";

interface Step {
  name: string;
  /** Every later step depends on it: a failure stops the demo. */
  required?: boolean;
  heading: string;
  /** Runs the step and returns what the summary says about it. */
  run(): Promise<string>;
}

const STEPS: Step[] = [
  {
    name: "login",
    // Every later step needs the tokens.
    required: true,
    heading: "authorization code + PKCE through the CLI's loopback callback, alice in the browser",
    async run() {
      let signedIn: Promise<VisitedPage | Error> | undefined;
      const result = await roundtrip(
        ["login", "--client-id", "mcp-interactive", "--scope", "mcp:tools mcp:deploy", "--no-browser"],
        {
          // The CLI prints where to start the sign-in; alice's browser goes there, like a person would.
          watch: (stderr) => {
            // Taken once the line after it is out too, so the CLI's whole sign-in notice shows first.
            const start = /Open: (http:\/\/127\.0\.0\.1:\d+\/login)\n[^\n]*\n/.exec(stderr)?.[1];
            if (start === undefined || signedIn !== undefined) return;
            note("signing in as alice on the development authorization server");
            signedIn = alice.visit(start, start).then(
              (page) => {
                note(`alice's browser reached the CLI's callback: HTTP ${page.status} ${page.url.pathname}`);
                return page;
              },
              (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
            );
          },
        },
      );
      const page = await signedIn;
      if (page === undefined) throw new DemoFailure("the CLI printed no sign-in URL");
      if (page instanceof Error) throw new DemoFailure(`alice's sign-in failed: ${page.message}`);
      expectOutput(result, /Logged in to .*client mcp-interactive.*mcp:deploy/, "a login with mcp:deploy");
      return "alice signed in (mcp:tools mcp:deploy)";
    },
  },
  {
    name: "create_service",
    heading:
      "form elicitations across rounds: runtime and size in one round, then a confirmation quoting both",
    async run() {
      const file = await answers("create_service", {
        runtime: { runtime: "node22" },
        tier: { tier: "small" },
        confirmation: { confirm: true },
      });
      const result = await roundtrip(["call", "create_service", "name=api", ...file, ...scripted("--yes")], {
        person: interactive,
      });
      expectOutput(result, /Created service api on node22, size small/, "the created service");
      return lastResult();
    },
  },
  {
    name: "summarize",
    heading: interactive
      ? "sampling: the server has no model and asks the client's; you review the request and type the reply"
      : "sampling: the server has no model and asks the client's; the reply comes from the answers file",
    async run() {
      const file = await answers("summarize", { summary: { text: SUMMARY_ANSWER, model: "answers-file" } });
      const result = await roundtrip(
        ["call", "summarize", `text=${SUMMARIZED_TEXT}`, ...file, ...scripted("--yes")],
        {
          person: interactive,
        },
      );
      expectOutput(result, /^Summary \(by answers-file\): .+$/m, "the summary");
      return lastResult();
    },
  },
  {
    name: "list_workspace",
    heading: "roots: the server asks which directories the client shares; --root . shares this repository",
    async run() {
      const result = await roundtrip(["call", "list_workspace", "--root", ".", ...scripted("--yes")]);
      expectOutput(result, /The client shares 1 root\(s\)/, "the shared root");
      return lastResult();
    },
  },
  {
    name: "deploy",
    heading:
      "several rounds and a process restart: a confirmation form, then approval on the server's page (URL mode)",
    async run() {
      resetApproval();
      const args = ["call", "deploy", "service=api", "env=staging"];
      let detached: CliResult;
      if (fleetRun) {
        stack?.route("A");
        note("the load balancer sends every request to instance A for now");
      }
      if (interactive) {
        note("--detach saves the flow at its first question; a new process finishes it, asking you");
        detached = await roundtrip([...args, "--detach"], { expect: ExitCode.detached });
      } else {
        note("--answers confirms; --detach saves the flow when the server waits for the approval page");
        const file = await answers("deploy", { confirm: { confirm: true } });
        detached = await roundtrip([...args, ...file, "--detach"], { expect: ExitCode.detached });
      }
      const id = /roundtrip resume (\S+)/.exec(detached.stderr)?.[1];
      if (id === undefined) throw new DemoFailure("the detached deploy printed no pending flow id");
      if (!interactive) {
        if (approvalUrl === undefined) throw new DemoFailure("the server never asked for the approval URL");
        note("the CLI process has exited; the server holds a pending approval for alice's release");
        await approveAs(approvalUrl, note);
      }
      await roundtrip(["pending"]);
      if (fleetRun) {
        stack?.route("B");
        note("the load balancer now sends everything to instance B: the flow finishes there");
      }
      const resumed = await roundtrip(["resume", id, ...(interactive ? ["--no-browser"] : ["--yes"])], {
        person: interactive,
      });
      if (backgroundApproval !== undefined) {
        const outcome = await backgroundApproval;
        if (heldLines.length > 0) note("meanwhile, in alice's browser:");
        for (const line of heldLines) note(`  ${line}`);
        if (outcome instanceof Error) throw new DemoFailure(`approving as alice failed: ${outcome.message}`);
      }
      const deployed = /Deployed rel-[0-9a-f]{32} of api to staging/;
      expectOutput(resumed, deployed, "the deployment");
      if (fleetRun && stack) {
        const outcome = deployed.exec(lastResult())?.[0];
        const before = stack.logged("release deployed");
        note(
          "replaying the completing round, byte for byte, on instance A (as a proxy's retry or a replay would)",
        );
        const replay = await stack.replayLastCompletion("deploy", "A");
        const after = stack.logged("release deployed");
        if (before !== 1 || after !== 1) {
          throw new DemoFailure(
            `"release deployed" was logged ${before} times before the replay and ${after} after it, not once`,
          );
        }
        const who = `instance ${replay.answeredBy ?? "A (which named no instance)"}`;
        const got = deployed.exec(replay.text)?.[0];
        if (replay.status === 200 && got !== undefined && got === outcome) {
          note(
            `the replay was not run again: "release deployed" is logged once, before and after it; ${who} answered it with the first outcome, from the shared once-ledger ("${got}")`,
          );
        } else {
          note(
            `the replay was not run again: "release deployed" is logged once, before and after it; ${who} answered HTTP ${replay.status}: ${oneLine(replay.text, 160)}`,
          );
        }
      }
      return lastResult();
    },
  },
  {
    name: "incident_brief",
    heading: "a prompt that asks before it renders: the severity shapes the brief",
    async run() {
      const file = await answers("incident_brief", { severity: { severity: "sev2" } });
      const result = await roundtrip(
        ["prompt", "incident_brief", "service=api", ...file, ...scripted("--yes")],
        {
          person: interactive,
        },
      );
      expectOutput(result, /Write a sev2 incident brief for api/, "the rendered prompt");
      return lastResult();
    },
  },
  {
    name: "status://api",
    heading: "a resource template that asks: which time window of the status to read",
    async run() {
      const file = await answers("status", { window: { window: "24h" } });
      const result = await roundtrip(["read", "status://api", ...file, ...scripted("--yes")], {
        person: interactive,
      });
      expectOutput(result, /api: operational over the last 24h/, "the status");
      return lastResult();
    },
  },
];

// ---------------------------------------------------------------------------------------------------
// Start, run, always stop

let stack: Stack | undefined;
let fleetServices: FleetServices | undefined;
let workDir: string | undefined;
let stopping: Promise<void> | undefined;
/** Set by SIGINT, SIGTERM or SIGHUP, whose handler stops everything and ends the process. */
let signalled = false;

function shutDown(): Promise<void> {
  stopping ??= (async () => {
    stopChildren();
    await stack?.close();
    await fleetServices?.close();
    if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
  })();
  return stopping;
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    say();
    say(`demo: interrupted (${signal}); stopping the CLI and both servers`);
    void shutDown().finally(() => process.exit(128 + (constants.signals[signal] ?? 1)));
  });
}

async function main(): Promise<number> {
  const started = performance.now();
  say(paint("bold", "Roundtrip demo: MCP 2026-07-28 multi round-trip requests, end to end"));
  say(
    interactive
      ? "Interactive: you answer the forms and the sampling request in this terminal (pnpm demo --scripted answers them for you)."
      : "Scripted: answers come from files this demo writes; nothing is asked.",
  );
  workDir = await mkdtemp(join(tmpdir(), "roundtrip-demo-"));
  const home = join(workDir, "home");
  answersDir = join(workDir, "answers");
  await mkdir(answersDir);
  const provisioned = await provisionFleetServices("roundtrip-demo");
  if (provisioned.kind === "fleet") {
    fleetServices = provisioned.services;
    fleetRun = true;
  } else {
    say(paint("yellow", `Running one instance under an ephemeral key: ${provisioned.reason}`));
  }
  stack = await startStack({
    ...(fleetServices ? { fleet: fleetServices } : {}),
    onRound: (round) => {
      if (!signalled) onRound(round);
    },
  });
  cliEnvironment = {
    // The person's own CLI settings (token, server, sampling provider) must not leak into the demo.
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("ROUNDTRIP_"))),
    ROUNDTRIP_HOME: home,
    ROUNDTRIP_SERVER: stack.url,
  };
  say();
  say(
    `Development authorization server  ${stack.issuer}   (in memory, users alice and bob; development only)`,
  );
  if (fleetServices) {
    say(
      `KMS emulator (moto)               ${fleetServices.kms.endpoint}   key ${fleetServices.kms.keyAlias}`,
    );
    say(`Redis, shared by the instances    ${fleetServices.redisUrl}`);
    say(`Reference MCP server              ${stack.url}   (instances A and B behind one URL)`);
  } else {
    say(`Reference MCP server              ${stack.url}`);
  }
  for (const line of stack.keyLines) say(`  ${line}`);
  say("Every step runs the CLI as a new process, as if you had typed:");
  say(`  export ROUNDTRIP_SERVER=${stack.url} ROUNDTRIP_HOME=${home}`);
  say(`  alias roundtrip="node ${BIN_FROM_REPOSITORY}"`);
  say(
    paint(
      "dim",
      "Lines starting with ⇄ are the CLI's own (-v): each round, what it answered, what the server asked.",
    ),
  );

  const results: { name: string; ok: boolean; detail: string; ms: number }[] = [];
  const failures: { step: string; message: string }[] = [];
  for (const [index, step] of STEPS.entries()) {
    say();
    say(paint(["bold", "green"], `── ${index + 1}/${STEPS.length} ${step.name}: ${step.heading}`));
    const stepStarted = performance.now();
    lastRound = undefined;
    try {
      const detail = await step.run();
      results.push({ name: step.name, ok: true, detail, ms: performance.now() - stepStarted });
    } catch (error) {
      if (signalled) return 130;
      if (error instanceof Interrupted) {
        say();
        say(`demo: interrupted at ${step.name}; stopping both servers`);
        return 130;
      }
      const message = error instanceof DemoFailure ? error.message : stackOf(error);
      results.push({ name: step.name, ok: false, detail: message, ms: performance.now() - stepStarted });
      failures.push({ step: step.name, message });
      say(paint("red", `✗ ${step.name}: ${message}`));
      if (step.required) break;
    }
  }

  if (fleetServices && failures.length === 0) {
    // What a run leaves in the fleet's store, read as anyone with access to Redis would read it.
    const known = [...results.map((result) => result.detail), SUMMARIZED_TEXT, SUMMARY_ANSWER];
    const atRest = await redisAtRest(fleetServices.redisUrl, known);
    say();
    say(paint(["bold", "green"], "── at rest: what the fleet's shared Redis holds after every step"));
    if (atRest.inClear.length > 0) {
      const message = `Redis holds ${atRest.inClear.length} of this run's results, arguments or answers in clear`;
      failures.push({ step: "at rest", message });
      say(paint("red", `✗ ${message}`));
    } else {
      note(
        `Redis holds ${atRest.keys} keys: ids, expiry times and sealed values; none of the ${atRest.searched} results, arguments and answers of this run in clear`,
      );
    }
  }

  say();
  say(paint("bold", "Summary"));
  const width = Math.max(...STEPS.map((step) => step.name.length));
  for (const step of STEPS) {
    const result = results.find((r) => r.name === step.name);
    const mark = result === undefined ? "-" : result.ok ? paint("green", "✓") : paint("red", "✗");
    const detail = result === undefined ? "not run" : oneLine(result.detail, 90);
    const time = result === undefined ? "" : ` (${(result.ms / 1000).toFixed(1)} s)`;
    say(`  ${mark} ${step.name.padEnd(width)}  ${detail}${time}`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (failures.length > 0) {
    const failed = failures.map((failure) => failure.step).join(", ");
    process.stderr.write(
      `\ndemo: ${failures.length} of ${STEPS.length} steps failed (${failed}): ${failures[0]?.message}\n`,
    );
    return 1;
  }
  say(`All ${STEPS.length} steps succeeded in ${seconds} s.`);
  return 0;
}

let code: number;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`demo: failed before its steps could run: ${stackOf(error)}\n`);
  code = 1;
}
// A signal's handler ends the process itself; everything else ends here.
if (!signalled) {
  await shutDown();
  say("Both servers stopped; the temporary ROUNDTRIP_HOME is gone.");
  process.exit(code);
}
