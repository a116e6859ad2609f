// The Roundtrip demo, `pnpm demo`: starts the development authorization server and the reference server
// on loopback, signs the `roundtrip` CLI in as alice, and walks through every example the server has,
// one CLI process per step, each run with -v so that the CLI itself prints a line for each round. On a
// terminal the person answers the forms and the sampling request; otherwise (or with --scripted)
// answers files do. The deploy approval is always given by the demo, playing alice's browser on the
// server's page. This file starts and stops; the steps are in steps.ts, and runner.ts walks them.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { aliceBrowser } from "./alice.js";
import { BIN_FROM_REPOSITORY } from "./cli.js";
import { cliSteps } from "./cli-steps.js";
import { stackOf } from "./failures.js";
import { provisionFleetServices } from "./fleet-services.js";
import { describeStack, greet, heading, paint, say } from "./narration.js";
import { watchRounds } from "./rounds.js";
import { runSteps } from "./runner.js";
import { type Shutdown, shutdownOnSignals } from "./shutdown.js";
import { startStack } from "./stack.js";
import { SENT_TEXTS, STEPS } from "./steps.js";
import { collectTraces } from "./trace-collector.js";
import { type CollectedSpan, lastFlow, renderWaterfall } from "./waterfall.js";

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

/** Starts what the steps need, registering each thing with `shutdown` as soon as it exists. */
async function main(shutdown: Shutdown): Promise<number> {
  const started = performance.now();
  // The CLI asks a person only when its stdin and stderr are terminals, so the demo uses the same test.
  const interactive = !flags.includes("--scripted") && Boolean(process.stdin.isTTY && process.stderr.isTTY);
  greet(interactive);
  const workDir = await mkdtemp(join(tmpdir(), "roundtrip-demo-"));
  shutdown.defer(() => rm(workDir, { recursive: true, force: true }));
  const home = join(workDir, "home");
  const answersDir = join(workDir, "answers");
  await mkdir(answersDir);
  const provisioned = await provisionFleetServices("roundtrip-demo");
  const fleet = provisioned.kind === "fleet" ? provisioned.services : undefined;
  if (provisioned.kind === "single") {
    say(paint("yellow", `Running one instance under an ephemeral key: ${provisioned.reason}`));
  }
  if (fleet) shutdown.defer(() => fleet.close());
  // Before the instances start, so that their spans come here.
  const traces = collectTraces();
  shutdown.defer(() => traces.close());
  const alice = aliceBrowser();
  const rounds = watchRounds({ interactive, alice });
  const stack = await startStack({
    ...(fleet ? { fleet } : {}),
    onRound: (round) => {
      if (!shutdown.signalled) rounds.seen(round);
    },
    onTaskAsks: (asks) => {
      if (!shutdown.signalled) rounds.taskAsked(asks);
    },
  });
  shutdown.defer(() => stack.close());
  const env = {
    // The person's own CLI settings (token, server, sampling provider) must not leak into the demo.
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("ROUNDTRIP_"))),
    ROUNDTRIP_HOME: home,
    ROUNDTRIP_SERVER: stack.url,
  };
  describeStack(stack, fleet, home, BIN_FROM_REPOSITORY);
  const cli = cliSteps({ interactive, env, answersDir, stack });
  const code = await runSteps({ interactive, fleet: fleet !== undefined, stack, alice, rounds, cli }, STEPS, {
    started,
    redisUrl: fleet?.redisUrl,
    sentTexts: SENT_TEXTS,
    signalled: () => shutdown.signalled,
  });
  if (!shutdown.signalled) drawDeployTrace(traces.spans());
  return code;
}

/** The deploy flow as its spans tell it: each round on the instance that served it, the waits between. */
function drawDeployTrace(spans: CollectedSpan[]): void {
  heading("trace: the deploy flow's rounds, from the spans the instances recorded");
  const lines = renderWaterfall(lastFlow(spans, "deploy"), {
    title: "tools/call deploy",
    gapLabel: "waiting on alice",
  });
  for (const line of lines) say(line);
}

const shutdown = shutdownOnSignals();
const code = await main(shutdown).catch((error: unknown) => {
  process.stderr.write(`demo: failed before its steps could run: ${stackOf(error)}\n`);
  return 1;
});
// A signal's handler ends the process itself; everything else ends here.
if (!shutdown.signalled) {
  await shutdown.stop();
  say("Both servers stopped; the temporary ROUNDTRIP_HOME is gone.");
  process.exit(code);
}
