import { rm } from "node:fs/promises";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Check, checksWith, type ScenarioResult } from "../src/conformance-cli.js";
import { CANNOT_PASS, listRequirements, TASKS_SCENARIOS } from "../src/requirements.js";
import { REVISIONS, runServerConformance, type ServerConformance } from "../src/server-run.js";

/**
 * The official conformance suite judges Roundtrip's server: for each requirement set (2026-07-28,
 * and 2025-11-25, whose clients the same endpoint serves on sessions), one run of the frozen set
 * against the fixture, then one test per scenario. The scenario list comes from the suite itself, so
 * a scenario the pinned suite adds is a new test here, not a silent gap.
 */

const requirementSets = await Promise.all(REVISIONS.map((revision) => listRequirements(revision)));

function resultFor(outcome: ServerConformance, scenario: string): ScenarioResult {
  const result = outcome.run.scenarios.find((entry) => entry.scenario === scenario);
  if (!result) throw new Error(`the suite wrote no results for ${scenario} under ${outcome.run.outputDir}`);
  return result;
}

function describeChecks(checks: readonly Check[]): string[] {
  return checks.map((check) => `${check.id}: ${check.errorMessage ?? check.description ?? ""}`);
}

function expectPassed(outcome: ServerConformance, scenario: string): void {
  const result = resultFor(outcome, scenario);
  expect(result.checks.length, "the scenario ran no checks").toBeGreaterThan(0);
  expect(describeChecks(checksWith(result, "FAILURE"))).toEqual([]);
  const wire = result.checks.filter(
    (check) => check.id === "wire-schema-valid" && check.status !== "SUCCESS",
  );
  expect(describeChecks(wire)).toEqual([]);
}

describe.each(requirementSets)(
  "official conformance suite, server requirement set $revision",
  (requirements) => {
    // Pending, extension (the tasks extension) and added-after-release scenarios: run with the set,
    // unscored by the suite, and held to passing all the same.
    const unscored = requirements.notScored.filter(
      (entry) => entry.leg === "server" && CANNOT_PASS.server[entry.scenario] === undefined,
    );
    let outcome: ServerConformance;

    beforeAll(async () => {
      // Quiet: the fixture's deliberately failing tool would log a warning on every run.
      outcome = await runServerConformance({
        revision: requirements.revision as (typeof REVISIONS)[number],
        requirements,
        fixture: { logger: silentLogger },
      });
    }, 180_000);

    afterAll(async () => {
      // A failed run keeps its per-scenario checks.json for inspection; the assertions name the folder.
      if (outcome?.run.exitCode === 0) await rm(outcome.run.outputDir, { recursive: true, force: true });
    });

    it("exits 0 without an expected-failures baseline", () => {
      const context = `results in ${outcome.run.outputDir}\n${outcome.run.stdout.slice(-4000)}`;
      expect(outcome.run.exitCode, context).toBe(0);
    });

    it("writes results for every required scenario", () => {
      expect(requirements.server.length).toBeGreaterThan(0);
      expect(outcome.missing).toEqual([]);
    });

    it("validates what the fixture sends against the revision's JSON schema", () => {
      const validated = outcome.required.filter((result) =>
        result.checks.some((check) => check.id === "wire-schema-valid" && check.status === "SUCCESS"),
      );
      expect(validated.length).toBeGreaterThan(0);
    });

    it("meets the SHOULD-level checks of required scenarios too (no warnings)", () => {
      const warnings = outcome.required.flatMap((result) =>
        describeChecks(checksWith(result, "WARNING")).map((line) => `${result.scenario} / ${line}`),
      );
      expect(warnings).toEqual([]);
    });

    describe("required scenarios", () => {
      for (const scenario of requirements.server) {
        it(scenario, () => expectPassed(outcome, scenario));
      }
    });

    describe("scenarios run but not scored by the suite (the fixture serves them)", () => {
      for (const { scenario, reason } of unscored) {
        it(`${scenario} (${reason})`, () => expectPassed(outcome, scenario));
      }
    });

    // The suite runs the extension's scenarios with the current revision's set only.
    if (requirements.revision === "2026-07-28") {
      it("runs every tasks extension scenario with the set", () => {
        expect(unscored.map((entry) => entry.scenario)).toEqual(expect.arrayContaining([...TASKS_SCENARIOS]));
      });
    }
  },
);
