// The task step: deploy as a durable task of the fleet. Instance A accepts it, the CLI answers its
// questions and alice approves on the server's page, then the CLI detaches mid-rollout; the instance
// running the task dies, and a new CLI process follows the task to its end on the other instance,
// where the release's one-deployment claim keeps it to one deployment. Fleet only.
import { ExitCode } from "@roundtrip/client";
import { waitFor } from "@roundtrip/test-services";
import { DemoFailure } from "./failures.js";
import { note } from "./narration.js";
import { showBackgroundApproval } from "./rounds.js";
import type { DemoRun, Step } from "./step.js";

/** What the deploy tool logs once the deployer took a release; its `release` field names it. */
const DEPLOYED_LOG = "release deployed";
/** Generous: a busy machine may take long to get there, never this long. */
const WITHIN_MS = 120_000;
/** A saved task in `roundtrip tasks`: its id, when it was saved, then the tool. */
const SAVED_DEPLOY = /^(\S+) {2}\S+ {2}deploy {2}on /m;

export const taskStep: Step = {
  name: "deploy task",
  heading: "deploy as a durable task: the instance running it dies mid-rollout, another finishes it, once",
  async run(run) {
    const { fleet, stack } = run;
    if (!fleet) {
      note(
        "skipped: a task outlives its instance only on a fleet (the tasks and their queue in Redis, another instance to take over), and this run has one instance (why is said above)",
      );
      return "skipped: no fleet";
    }
    const { release, detached } = await deployUntilRollingOut(run);
    if (!detached) {
      note(
        "you chose to keep following: the task ran to its end on instance A while you watched, so no instance dies in this run; choose Detach at the Ctrl-C question to see another instance finish it",
      );
      return "the task completed on instance A, followed to its end";
    }
    const runners = stack.loggedBy(DEPLOYED_LOG, { release });
    const dead = runners[0];
    if (runners.length !== 1 || dead === undefined) {
      throw new DemoFailure(`"${DEPLOYED_LOG}" was logged ${runners.length} times for ${release}, not once`);
    }
    note(
      dead === "A"
        ? "instance A accepted the task and its own worker took the job: A runs the rollout"
        : `instance A accepted the task, but instance ${dead}'s worker took the job: ${dead} runs the rollout, so ${dead} is the one that dies`,
    );
    // At once, while the rollout still has seconds to go.
    await stack.crash(dead);
    try {
      return await followOnSurvivor(run, release, dead);
    } finally {
      // Whatever happened, the steps after this one find both instances, and B behind the URL.
      await stack.restart(dead);
      stack.route("B");
      note(
        `instance ${dead} is started again, on its port and its Redis; the load balancer is back on instance B`,
      );
    }
  },
};

/**
 * `roundtrip call deploy` with the tasks extension, on instance A: answered (the confirmation from the
 * answers file or the person, the approval by alice on the page), then Ctrl-C once the release is
 * deployed and rolling out, which detaches the CLI. Returns the release, and whether the CLI detached
 * (on a terminal the person may choose to keep following instead, and the task ends under their eyes).
 */
async function deployUntilRollingOut(run: DemoRun): Promise<{ release: string; detached: boolean }> {
  const { cli, interactive, rounds, stack } = run;
  rounds.forgetApproval();
  stack.route("A");
  note(
    "the load balancer sends every request to instance A; the CLI declares the tasks extension, so A runs deploy as a task: its record and its job go to Redis, where every instance's worker can take it",
  );
  const file = await cli.answers("deploy-task", { confirm: { confirm: true } });
  if (interactive) {
    note(
      "once the release is rolling out, the demo presses Ctrl-C in the CLI for you: choose Detach, and the task goes on on the server",
    );
  }
  let following = true;
  let release: string | undefined;
  const rolling = (async () => {
    // The task's questions reach the CLI through tasks/get, which the load balancer reads (rounds.ts).
    await waitFor(
      "the task to ask for the approval page",
      async () => !following || rounds.approvalUrl() !== undefined,
      WITHIN_MS,
    );
    const url = rounds.approvalUrl();
    if (url === undefined) return;
    release = new URL(url).pathname.split("/").pop();
    // On a terminal, alice's browser started on its own when the question went by.
    if (!interactive) await run.alice.approve(url, note);
    await waitFor(
      `"${DEPLOYED_LOG}" for ${release}`,
      async () => !following || stack.logged(DEPLOYED_LOG, { release }) > 0,
      WITHIN_MS,
    );
    if (following && !interactive) {
      note(
        `"${DEPLOYED_LOG}" is logged for ${release}: the rollout is under way; the demo presses Ctrl-C, and a CLI with no terminal detaches`,
      );
    }
  })();
  // Read once the CLI ends; until then it only says when to press Ctrl-C.
  rolling.catch(() => {});
  const ended = await cli
    .roundtrip(["call", "deploy", "service=web", "env=staging", ...file, ...cli.scripted("--yes")], {
      person: interactive,
      expect: interactive ? [ExitCode.detached, ExitCode.ok] : ExitCode.detached,
      interruptWhen: rolling,
    })
    .finally(() => {
      following = false;
    });
  await rolling;
  if (interactive) await showBackgroundApproval(rounds);
  if (release === undefined) throw new DemoFailure("the task never asked for the approval page");
  return { release, detached: ended.code === ExitCode.detached };
}

/** With `dead` cut off, a new CLI process follows the saved task on the other instance to its end. */
async function followOnSurvivor({ cli, interactive, stack }: DemoRun, release: string, dead: string) {
  const survivor = stack.instances.find((name) => name !== dead) ?? "B";
  note(
    `instance ${dead} dies while its rollout runs: every connection it had, to Redis and to clients, drops at once, and what is left of it in this process is stopped afterwards with Redis already out of its reach (the instances run inside the demo's process, so this is what its death does to the fleet, not a SIGKILL)`,
  );
  const listed = await cli.roundtrip(["tasks"]);
  const id = SAVED_DEPLOY.exec(listed.stdout)?.[1];
  if (id === undefined) throw new DemoFailure("`roundtrip tasks` lists no saved deploy task");
  stack.route(survivor);
  note(
    `the load balancer sends everything to instance ${survivor}; the task's record and its job are still in Redis, and once ${dead}'s hold on the job lapses (TASK_LOCK_SECONDS=3) ${survivor}'s worker takes it`,
  );
  const resumed = await cli.roundtrip(["resume", id, ...cli.scripted("--yes")], { person: interactive });
  const outcome = cli.expectOutput(
    resumed,
    new RegExp(`Deployed ${release} of web to staging|Release ${release} was already deployed[^\\n]*`),
    "the task's result",
  );
  const deployed = stack.logged(DEPLOYED_LOG, { release });
  if (deployed !== 1) {
    throw new DemoFailure(
      `"${DEPLOYED_LOG}" was logged ${deployed} times for ${release}, not once: the task deployed again`,
    );
  }
  note(
    `"${DEPLOYED_LOG}" is logged once for ${release}, by instance ${dead}: ${howItEnded(outcome, dead, survivor)}`,
  );
  return outcome ?? `the task of ${release} ended, deployed once`;
}

/** What the task's result says happened, in scripted mode; on a terminal, how to read the result shown. */
function howItEnded(outcome: string | undefined, dead: string, survivor: string): string {
  const rerun = `${survivor}'s worker ran the task's last round again, and the release's claim in the approval store (set only if absent, in Redis: the once-ledger of deployments) answered that it was deployed already, so nothing deployed twice`;
  if (outcome === undefined) return `a result saying the release was already deployed means ${rerun}`;
  if (/already deployed/.test(outcome)) return rerun;
  return `the rollout had ended on ${dead} before it died, so the task completed there and ${survivor} only reported it`;
}
