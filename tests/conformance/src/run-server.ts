import { silentLogger } from "@roundtrip/sdk/protocol";
import { checksWith, scenarioPassed, tally } from "./conformance-cli.js";
import { reportEveryScenario } from "./scenario-report.js";
import {
  REVISIONS,
  type Revision,
  runServerConformance,
  runServerScenario,
  type ServerConformance,
} from "./server-run.js";

/**
 * `pnpm conformance:server`: the official suite against Roundtrip's fixture server, once per
 * requirement set (2026-07-28, and 2025-11-25 for the legacy clients served on the same endpoint).
 * Extra arguments go to the CLI (e.g. `--verbose`).
 */

async function runSet(revision: Revision, outcomes: ServerConformance[]): Promise<boolean> {
  const outcome = await runServerConformance({ revision, echo: true, extraArgs: process.argv.slice(2) });
  outcomes.push(outcome);
  const required = tally(outcome.required);
  const unscored = tally(outcome.unscored);

  console.log(`\n=== Roundtrip server conformance, requirement set ${revision} ===`);
  console.log(
    `Required scenarios: ${required.scenariosPassed} passed, ${required.scenariosFailed + outcome.missing.length} failed (of ${outcome.requirements.server.length})`,
  );
  console.log(
    `Required checks: ${required.checksPassed} passed, ${required.checksFailed} failed, ${required.warnings} warnings`,
  );
  for (const result of outcome.required.filter((result) => !scenarioPassed(result))) {
    for (const check of checksWith(result, "FAILURE")) {
      console.log(`  ✗ ${result.scenario} / ${check.id}: ${check.errorMessage ?? check.description ?? ""}`);
    }
  }
  for (const name of outcome.missing) console.log(`  ✗ ${name}: no results were written`);
  console.log(
    `Not scored: ${unscored.scenariosPassed} passed, ${unscored.scenariosFailed} failed (${outcome.unscored.length} run)`,
  );
  console.log(`Results: ${outcome.run.outputDir}`);

  return outcome.run.exitCode === 0 && required.scenariosFailed === 0 && outcome.missing.length === 0;
}

let allPassed = true;
const outcomes: ServerConformance[] = [];
for (const revision of REVISIONS) {
  if (!(await runSet(revision, outcomes))) allPassed = false;
}
const everyScenarioPassed = await reportEveryScenario(
  "server",
  outcomes.map((outcome) => outcome.requirements),
  outcomes.map((outcome) => outcome.run),
  (scenario) => runServerScenario(scenario, { fixture: { logger: silentLogger } }),
);
process.exitCode = allPassed && everyScenarioPassed ? 0 : 1;
