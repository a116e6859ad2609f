// The deploy step: the flow that outlives a process and moves between instances. It detaches at the
// approval URL on instance A, alice approves on the server's page, and a new process resumes it on
// instance B; then the completing round, replayed on A, shows the once-ledger answering, not running.
import { ExitCode } from "@roundtrip/client";
import type { CliResult } from "./cli.js";
import { DemoFailure } from "./failures.js";
import { note, oneLine } from "./narration.js";
import { showBackgroundApproval } from "./rounds.js";
import type { DemoRun, Step } from "./step.js";

const DEPLOYED = /Deployed rel-[0-9a-f]{32} of api to staging/;

export const deployStep: Step = {
  name: "deploy",
  heading:
    "several rounds and a process restart: a confirmation form, then approval on the server's page (URL mode)",
  async run(run) {
    const { cli, fleet, interactive, rounds, stack } = run;
    rounds.forgetApproval();
    // In rounds, not as a task: this step shows a flow's own state carrying it between instances.
    const args = ["call", "deploy", "service=api", "env=staging", "--no-tasks"];
    let detached: CliResult;
    if (fleet) {
      stack.route("A");
      note("the load balancer sends every request to instance A for now");
    }
    if (interactive) {
      note("--detach saves the flow at its first question; a new process finishes it, asking you");
      detached = await cli.roundtrip([...args, "--detach"], { expect: ExitCode.detached });
    } else {
      note("--answers confirms; --detach saves the flow when the server waits for the approval page");
      const file = await cli.answers("deploy", { confirm: { confirm: true } });
      detached = await cli.roundtrip([...args, ...file, "--detach"], { expect: ExitCode.detached });
    }
    const id = /roundtrip resume (\S+)/.exec(detached.stderr)?.[1];
    if (id === undefined) throw new DemoFailure("the detached deploy printed no pending flow id");
    if (!interactive) {
      const url = rounds.approvalUrl();
      if (url === undefined) throw new DemoFailure("the server never asked for the approval URL");
      note("the CLI process has exited; the server holds a pending approval for alice's release");
      await run.alice.approve(url, note);
    }
    await cli.roundtrip(["pending"]);
    if (fleet) {
      stack.route("B");
      note("the load balancer now sends everything to instance B: the flow finishes there");
    }
    const resumed = await cli.roundtrip(["resume", id, ...(interactive ? ["--no-browser"] : ["--yes"])], {
      person: interactive,
    });
    await showBackgroundApproval(rounds);
    cli.expectOutput(resumed, DEPLOYED, "the deployment");
    if (fleet) await replayOnA(run);
    return rounds.lastResult();
  },
};

/** Sends the completing round again, byte for byte, to instance A: it must not deploy a second time. */
async function replayOnA({ rounds, stack }: DemoRun): Promise<void> {
  const outcome = DEPLOYED.exec(rounds.lastResult())?.[0];
  const before = stack.logged("release deployed");
  note("replaying the completing round, byte for byte, on instance A (as a proxy's retry or a replay would)");
  const replay = await stack.replayLastCompletion("deploy", "A");
  const after = stack.logged("release deployed");
  if (before !== 1 || after !== 1) {
    throw new DemoFailure(
      `"release deployed" was logged ${before} times before the replay and ${after} after it, not once`,
    );
  }
  const who = `instance ${replay.answeredBy ?? "A (which named no instance)"}`;
  const got = DEPLOYED.exec(replay.text)?.[0];
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
