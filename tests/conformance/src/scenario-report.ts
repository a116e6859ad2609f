import { type ConformanceRun, type ScenarioResult, scenarioPassed } from "./conformance-cli.js";
import { BY_NAME_SCENARIOS, listScenarios, planScenario, type Requirements } from "./requirements.js";

/**
 * The closing report of `pnpm conformance:server|client`: every scenario the suite lists for the leg,
 * one line each, with how it ran and whether it passed. The run fails when a scenario that should pass
 * did not, or when the suite lists one Roundtrip has not named.
 */
export async function reportEveryScenario(
  leg: "server" | "client",
  sets: readonly Requirements[],
  runs: readonly ConformanceRun[],
  runByName: (scenario: string) => Promise<ConformanceRun>,
): Promise<boolean> {
  const results = new Map<string, ScenarioResult>();
  // A scenario several sets run counts as passed only if it passed in every one.
  for (const run of runs) {
    for (const result of run.scenarios) {
      const earlier = results.get(result.scenario);
      if (!earlier || (scenarioPassed(earlier) && !scenarioPassed(result)))
        results.set(result.scenario, result);
    }
  }
  for (const scenario of BY_NAME_SCENARIOS[leg]) {
    const run = await runByName(scenario);
    const result = run.scenarios.find((entry) => entry.scenario === scenario);
    if (result) results.set(scenario, result);
  }
  const listing = await listScenarios();
  let ok = true;
  let passed = 0;
  console.log(`\n=== Roundtrip ${leg} conformance, every scenario of the suite (${listing[leg].length}) ===`);
  for (const scenario of listing[leg]) {
    const plan = planScenario(leg, scenario, sets);
    const result = results.get(scenario);
    if (plan.kind === "cannot-pass") {
      console.log(`  - ${scenario}: cannot pass, not held (${plan.reason})`);
      continue;
    }
    if (plan.kind === "unnamed") {
      ok = false;
      console.log(`  ✗ ${scenario}: not named in src/requirements.ts; run it or say why it cannot pass`);
      continue;
    }
    const how =
      plan.kind === "by-name" ? "by name" : `with ${plan.revision}${plan.scored ? "" : ", not scored"}`;
    const good = result !== undefined && scenarioPassed(result);
    if (good) passed++;
    else ok = false;
    const checks = result
      ? `${result.checks.filter((check) => check.status === "SUCCESS").length} checks passed`
      : "no results";
    console.log(`  ${good ? "✓" : "✗"} ${scenario} (${how}): ${checks}`);
  }
  const cannot = listing[leg].filter(
    (scenario) => planScenario(leg, scenario, sets).kind === "cannot-pass",
  ).length;
  console.log(
    `Every scenario: ${passed} passed, ${listing[leg].length - passed - cannot} failed, ${cannot} cannot pass (named with the reason)`,
  );
  return ok;
}
