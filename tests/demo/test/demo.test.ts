import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { ensureTool } from "@roundtrip/test-services";
import { beforeAll, describe, expect, it } from "vitest";

const REPOSITORY = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * `node apps/demo/bin/demo.js <args>` (what `pnpm demo` runs once it has installed and built) from the
 * repository root, with no terminal, as CI would run it. turbo builds @roundtrip/demo before this suite.
 */
function runDemo(args: string[] = []): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["apps/demo/bin/demo.js", ...args], {
    cwd: REPOSITORY,
    // The demo keeps the person's own CLI settings out of its runs; the test does not rely on that.
    env: Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("ROUNDTRIP_"))),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
}

// The two-instance version runs on the KMS emulator and Redis; this machine must have them (or say
// how to install them) rather than let the demo fall back to one instance unseen.
beforeAll(async () => {
  await ensureTool("moto_server");
  await ensureTool("redis-server");
}, 480_000);

describe("pnpm demo, unattended", () => {
  it("runs two instances on one KMS key and one Redis, walks every example round by round, and stops everything", async () => {
    const { code, output } = await runDemo();

    expect(code, output).toBe(0);
    expect(output).not.toContain("Running one instance");
    // Both instances unwrapped the same KMS-wrapped key at startup.
    const alias = /KMS emulator \(moto\) +http:\/\/127\.0\.0\.1:\d+ +key (alias\/\S+)/.exec(output)?.[1];
    expect(alias, output).toBeDefined();
    expect(output).toContain(`instance A: request-state keys unwrapped by KMS (${alias})`);
    expect(output).toContain(`instance B: request-state keys unwrapped by KMS (${alias})`);
    expect(output).toContain("Scripted: answers come from files");
    // Login: the CLI's authorization code flow, walked by alice's browser.
    expect(output).toContain(
      "$ roundtrip login --client-id mcp-interactive --scope 'mcp:tools mcp:deploy' --no-browser",
    );
    expect(output).toMatch(/Open: http:\/\/127\.0\.0\.1:\d+\/login/);
    expect(output).toContain("signing in as alice on the development authorization server");
    expect(output).toMatch(/Logged in to .* as client mcp-interactive \(scope mcp:tools mcp:deploy\)/);
    // Every example, each with its rounds as the CLI's -v prints them.
    expect(output).toMatch(
      /⇄ round 1: tools\/call create_service → asks for (runtime \(form: .*\), tier|tier \(form: .*\), runtime) \(form: /,
    );
    expect(output).toMatch(
      /⇄ round 2: tools\/call create_service answering (runtime, tier|tier, runtime) \(\+requestState\) → asks for confirmation \(form: "Create api on node22, size small\?"\)/,
    );
    expect(output).toContain("Created service api on node22, size small");
    expect(output).toContain("⇄ round 1: tools/call summarize → asks for summary (sampling)");
    expect(output).toContain("Summary (by answers-file): ");
    expect(output).toContain("⇄ round 1: tools/call list_workspace → asks for roots (roots)");
    expect(output).toMatch(/The client shares 1 root\(s\):\n\S+: file:\/\//);
    // deploy: detached at the approval URL, approved on the page, resumed by a new process.
    expect(output).toMatch(
      /⇄ round 2: tools\/call deploy answering confirm \(\+requestState\) → asks for approval \(URL http:\/\/127\.0\.0\.1:\d+\/approvals\/rel-[0-9a-f]{32}\)/,
    );
    const id = /Saved as pending flow (\S+): the server waits for "approval"\./.exec(output)?.[1];
    expect(id, output).toBeDefined();
    expect(output).toMatch(/alice pressed Approve: the server recorded rel-[0-9a-f]{32} as approved/);
    // With Chromium here, the page alice approves is pictured and its file named; without, not a word.
    const shot = /the page alice approves, as Chromium shows it: (\S+\.png)/.exec(output)?.[1];
    if (existsSync("/usr/bin/chromium")) {
      expect(shot, output).toBeDefined();
      expect((await stat(shot ?? "")).size).toBeGreaterThan(1000);
    } else {
      expect(output).not.toMatch(/screenshot|Chromium/);
    }
    expect(output).toMatch(
      new RegExp(`\\$ roundtrip pending\\n${id}  .*tools/call deploy .*waits for approval`),
    );
    expect(output).toContain(`$ roundtrip resume ${id} --yes -v`);
    expect(output).toContain("the load balancer now sends everything to instance B");
    expect(output).toMatch(
      /⇄ round 1, saved: tools\/call deploy → asks for approval \(URL http:\/\/127\.0\.0\.1:\d+\/approvals\/rel-[0-9a-f]{32}\)\n(.*\n)*⇄ round 2: tools\/call deploy answering approval \(\+requestState\) → the result/,
    );
    expect(output).toMatch(/Deployed rel-[0-9a-f]{32} of api to staging/);
    // Each instance named itself in its responses: A answered the rounds before the detach, B the
    // resumed one (round 1 of the resume is the saved round, which no instance answered again).
    expect(output).toMatch(
      /⇄ round 1: tools\/call deploy → asks for confirm .*\n {2}» instance A answered round 1\n/,
    );
    expect(output).toMatch(
      /⇄ round 2: tools\/call deploy answering confirm \(\+requestState\) → asks for approval .*\n {2}» instance A answered round 2\n/,
    );
    expect(output).toMatch(
      /⇄ round 2: tools\/call deploy answering approval \(\+requestState\) → the result\n {2}» instance B answered round 2\n/,
    );
    // And every round the CLI received, in every step, is followed by the instance that answered it.
    const lines = output.split("\n");
    const live = lines.flatMap((line, index) => {
      const round = /^⇄ round (\d+):/.exec(line)?.[1];
      return round === undefined ? [] : [[round, lines[index + 1]] as const];
    });
    expect(live.length).toBeGreaterThanOrEqual(12);
    for (const [round, next] of live)
      expect(next).toMatch(new RegExp(`^ {2}» instance [AB] answered round ${round}$`));
    expect(output.match(/» instance B answered/g)?.length, output).toBe(
      // After the load balancer turns to B: the resumed deploy's round, the prompt's two, the resource's two.
      5,
    );
    // The completing round, replayed byte for byte on A, was not run again and got the first outcome.
    const deployed = /Deployed (rel-[0-9a-f]{32}) of api to staging/.exec(output)?.[1];
    expect(output).toContain(
      `the replay was not run again: "release deployed" is logged once, before and after it; instance A answered it with the first outcome, from the shared once-ledger ("Deployed ${deployed} of api to staging")`,
    );
    // deploy as a task: A accepts it, the CLI detaches mid-rollout, the instance running it dies, and
    // a new CLI process follows it to its end on the other instance, where it deploys nothing again.
    expect(output).toMatch(/\$ roundtrip call deploy service=web env=staging --answers \S+ --yes -v\n/);
    const release = /asks you to open a web page:\n.*Release (rel-[0-9a-f]{32}) of web to staging/.exec(
      output,
    )?.[1];
    expect(release, output).toBeDefined();
    expect(output).toContain(`alice pressed Approve: the server recorded ${release} as approved`);
    expect(output).toContain(
      "Ctrl-C, and no terminal to ask whether to cancel: detaching, the task goes on on the server.",
    );
    const task = /Follow it with: roundtrip resume (\S+)/.exec(output)?.[1];
    expect(task, output).toBeDefined();
    const dead = /» instance ([AB]) dies while its rollout runs: /.exec(output)?.[1];
    expect(dead, output).toBeDefined();
    const survivor = dead === "A" ? "B" : "A";
    expect(output).toMatch(new RegExp(`\\$ roundtrip tasks\\n${task} {2}\\S+ {2}deploy {2}on `));
    expect(output).toContain(`the load balancer sends everything to instance ${survivor}; `);
    expect(output).toContain(`$ roundtrip resume ${task} --yes -v`);
    // Mid-rollout, the survivor runs the task's last round again and the ledger answers; on a machine
    // slow enough that the rollout ended before the instance died, the survivor reports it finished.
    const rerun = new RegExp(
      `\\nRelease ${release} was already deployed at \\S+; nothing was deployed again\\n`,
    );
    if (rerun.test(output)) {
      expect(output).toContain(
        `"release deployed" is logged once for ${release}, by instance ${dead}: ${survivor}'s worker ran the task's last round again`,
      );
    } else {
      expect(output).toMatch(new RegExp(`\\nDeployed ${release} of web to staging`));
      expect(output).toContain(
        `"release deployed" is logged once for ${release}, by instance ${dead}: the rollout had ended on ${dead} before it died`,
      );
    }
    expect(output).toContain(`instance ${dead} is started again`);
    expect(output).toContain("⇄ round 1: prompts/get incident_brief → asks for severity");
    expect(output).toContain("Write a sev2 incident brief for api");
    expect(output).toContain("⇄ round 1: resources/read status://api → asks for window");
    expect(output).toContain("api: operational over the last 24h");
    // The summary, and nothing left behind.
    // What the run left in Redis, read key by key: nothing of its results, arguments or answers in clear.
    expect(output).toMatch(
      /Redis holds [1-9]\d* keys: ids, expiry times and sealed values; none of the [1-9]\d* results, arguments and answers of this run in clear/,
    );
    expect(output).toContain("All 8 steps succeeded");
    // The deploy flow's trace, from the spans both instances recorded: its rounds on A, then B.
    expect(output).toMatch(/tools\/call deploy: flow [0-9a-f]{16}, [2-9] rounds on instances A, B\n┌/);
    expect(output).toMatch(/│ 1 +│ A +│ *█[^│]*│[^│]*│ input_required: elicitation/);
    expect(output).toMatch(/│ +│ +│ *┄+ *│[^│]*│ waiting on alice/);
    expect(output).toContain("Both servers stopped");
    const home = /ROUNDTRIP_HOME=(\S+)/.exec(output)?.[1];
    expect(home).toBeDefined();
    expect(existsSync(home!)).toBe(false);
  });

  it("refuses an unknown option before starting anything", async () => {
    const { code, output } = await runDemo(["--nope"]);
    expect(code).toBe(2);
    expect(output).toContain("demo: unknown option --nope");
  });
});
