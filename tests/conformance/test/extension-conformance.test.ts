import { rm } from "node:fs/promises";
import { silentLogger } from "@roundtrip/sdk/protocol";
import { describe, expect, it } from "vitest";
import { runClientScenario } from "../src/client/client-run.js";
import { type Check, type ConformanceRun, checksWith } from "../src/conformance-cli.js";
import { BY_NAME_SCENARIOS } from "../src/requirements.js";
import { runServerScenario } from "../src/server-run.js";

/**
 * The skills extension's scenarios are in no requirement set, so the suite runs them only when named:
 * each runs on its own here and must pass cleanly, with no failure, warning or skip, and with every
 * message the fixture sent valid against the revision's schema.
 */

function describeChecks(checks: readonly Check[]): string[] {
  return checks.map((check) => `${check.id}: ${check.errorMessage ?? check.description ?? ""}`);
}

async function expectClean(run: ConformanceRun, scenario: string): Promise<void> {
  const result = run.scenarios.find((entry) => entry.scenario === scenario);
  const context = `results in ${run.outputDir}\n${run.stdout.slice(-4000)}`;
  if (!result) throw new Error(`the suite wrote no results for ${scenario}: ${context}`);
  expect(result.checks.length, context).toBeGreaterThan(0);
  expect(describeChecks(checksWith(result, "FAILURE"))).toEqual([]);
  expect(describeChecks(checksWith(result, "WARNING"))).toEqual([]);
  expect(describeChecks(checksWith(result, "SKIPPED"))).toEqual([]);
  expect(run.exitCode, context).toBe(0);
  await rm(run.outputDir, { recursive: true, force: true });
}

describe("official conformance suite, scenarios run by name: the skills extension, 2025-03-26 authorization", () => {
  for (const scenario of BY_NAME_SCENARIOS.server) {
    it(`server: ${scenario}`, async () => {
      await expectClean(await runServerScenario(scenario, { fixture: { logger: silentLogger } }), scenario);
    }, 120_000);
  }
  for (const scenario of BY_NAME_SCENARIOS.client) {
    it(`client: ${scenario}`, async () => {
      await expectClean(await runClientScenario(scenario), scenario);
    }, 180_000);
  }
});
