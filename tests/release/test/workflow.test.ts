/**
 * The release workflow, read as GitHub reads it (YAML), without running it: the permissions publishing
 * with provenance needs and no more, the steps in the order that keeps a failing commit from being
 * versioned or published, and every action pinned to a commit.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number>;
  env?: Record<string, string>;
}

interface Workflow {
  on: { push?: { branches?: string[] } } & Record<string, unknown>;
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress": boolean };
  jobs: Record<
    string,
    { permissions?: Record<string, string>; container?: { image: string }; steps: Step[] }
  >;
}

let workflow: Workflow;
let steps: Step[];
let rootManifest: { packageManager: string; scripts: Record<string, string> };

beforeAll(async () => {
  workflow = parse(await readFile(join(repoRoot, ".github", "workflows", "release.yml"), "utf8")) as Workflow;
  const jobs = Object.values(workflow.jobs);
  expect(jobs).toHaveLength(1);
  steps = jobs[0]!.steps;
  rootManifest = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8"));
});

/** The index of the one step matching `test`, failing when none or several match. */
function stepIndex(what: string, test: (step: Step) => boolean): number {
  const found = steps.flatMap((step, index) => (test(step) ? [index] : []));
  expect(found, `the steps that ${what}`).toHaveLength(1);
  return found[0]!;
}

const usesAction = (action: string) => (step: Step) => step.uses?.split("@")[0] === action;

describe("the release workflow", () => {
  it("runs on pushes to main only, one run at a time and never cancelled halfway", () => {
    expect(Object.keys(workflow.on)).toEqual(["push"]);
    expect(workflow.on.push?.branches).toEqual(["main"]);
    expect(workflow.concurrency?.["cancel-in-progress"]).toBe(false);
  });

  it("grants the release job exactly what versioning and publishing with provenance need", () => {
    expect(workflow.permissions).toEqual({});
    expect(Object.values(workflow.jobs)[0]!.permissions).toEqual({
      contents: "write",
      "pull-requests": "write",
      "id-token": "write",
    });
  });

  it("checks out, sets up Node 24 and the repository's pnpm, runs CI, then versions or publishes", () => {
    const order = [
      stepIndex("check out", usesAction("actions/checkout")),
      stepIndex("set up Node", usesAction("actions/setup-node")),
      stepIndex("install pnpm", (step) => /\bpnpm@\d/.test(step.run ?? "")),
      stepIndex("run CI", (step) => /(^|\s)(bash )?\.ci\/run\b/.test(step.run ?? "")),
      stepIndex("version or publish", usesAction("changesets/action")),
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.at(-1)).toBe(steps.length - 1);

    // .ci/run as this repository's CI runs it: as root on Debian 12 (bookworm), with Node 24.
    expect(Object.values(workflow.jobs)[0]!.container?.image).toMatch(/^node:24(\.\d+){0,2}-bookworm$/);
    const node = steps[order[1]!]!;
    expect(String(node.with?.["node-version"])).toBe("24");
    expect(node.with?.["registry-url"]).toBe("https://registry.npmjs.org");
    const pnpm = /\bpnpm@(\S+)/.exec(steps[order[2]!]!.run!)![1];
    expect(`pnpm@${pnpm}`).toBe(rootManifest.packageManager);
    expect(rootManifest.packageManager).toBe("pnpm@11.29.0");
  });

  it("versions with changesets and publishes with the root's release:publish, authenticated by NPM_TOKEN", () => {
    const changesets = steps.find(usesAction("changesets/action"))!;
    expect(changesets.with?.["version-script"]).toBe("pnpm changeset version");
    expect(changesets.with?.["publish-script"]).toBe("pnpm release:publish");
    expect(rootManifest.scripts["release:publish"]).toBe("node scripts/release/publish.mjs");
    expect(rootManifest.scripts.changeset).toBe("changeset");
    expect(changesets.env?.NODE_AUTH_TOKEN).toMatch(/^\$\{\{ secrets\.NPM_TOKEN \}\}$/);
  });

  it("pins every action to a full commit, with the release it is in a comment", async () => {
    const text = await readFile(join(repoRoot, ".github", "workflows", "release.yml"), "utf8");
    const uses = steps.filter((step) => step.uses !== undefined).map((step) => step.uses!);
    expect(uses.length).toBe(3);
    for (const action of uses) expect(action).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    for (const action of uses) expect(text).toMatch(new RegExp(`uses: ${action} # v\\d+\\.\\d+\\.\\d+\\n`));
  });
});
