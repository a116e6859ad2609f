import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { REVISIONS, runClientScenario } from "../src/client/client-run.js";
import { checksWith } from "../src/conformance-cli.js";
import {
  BY_NAME_SCENARIOS,
  CANNOT_PASS,
  listRequirements,
  listScenarios,
  planScenario,
  TASKS_SCENARIOS,
} from "../src/requirements.js";

/**
 * Every scenario the pinned suite lists, server and client, scored or not (extension, pending, added
 * after release), is named here: run with a requirement set, run by name, or named as one that cannot
 * pass with the reason. A scenario the suite gains fails this test until it is named.
 */

const listing = await listScenarios();
const sets = await Promise.all(REVISIONS.map((revision) => listRequirements(revision)));

describe("the conformance suite's scenarios, each named", () => {
  for (const leg of ["server", "client"] as const) {
    it(`runs or names every ${leg} scenario`, () => {
      const unnamed = listing[leg].filter((scenario) => planScenario(leg, scenario, sets).kind === "unnamed");
      expect(unnamed, "name each in src/requirements.ts: run it, or say why it cannot pass").toEqual([]);
    });

    it(`names no ${leg} scenario the suite does not have`, () => {
      const named = [...Object.keys(CANNOT_PASS[leg]), ...BY_NAME_SCENARIOS[leg]];
      if (leg === "server") named.push(...TASKS_SCENARIOS);
      expect(named.filter((scenario) => !listing[leg].includes(scenario))).toEqual([]);
    });
  }

  // One test per client scenario that cannot pass (none today), showing it still fails for the reason given.
  for (const [scenario, reason] of Object.entries(CANNOT_PASS.client)) {
    it(`client scenario that cannot pass still fails: ${scenario}: ${reason.split(":")[0]}`, async () => {
      const run = await runClientScenario(scenario);
      const result = run.scenarios.find((entry) => entry.scenario === scenario);
      expect(result, `no results for ${scenario} in ${run.outputDir}`).toBeDefined();
      expect(checksWith(result!, "FAILURE").length).toBeGreaterThan(0);
      await rm(run.outputDir, { recursive: true, force: true });
    }, 180_000);
  }
});
