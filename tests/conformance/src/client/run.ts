import { checksWith, scenarioPassed, tally } from "../conformance-cli.js";
import { reportEveryScenario } from "../scenario-report.js";
import { type ClientConformance, REVISIONS, runClientConformance, runClientScenario } from "./client-run.js";

/**
 * `pnpm conformance:client`: the official suite drives Roundtrip's fixture client through every
 * requirement set the client is held to (2026-07-28, then the 2025-11-25 one, where the same fixture
 * meets 2025-era mock servers), auth/* scenarios included. Extra arguments go to the CLI (e.g.
 * `-o results/client`).
 */

let exitCode = 0;
const outcomes: ClientConformance[] = [];
for (const revision of REVISIONS) {
  const outcome = await runClientConformance({ revision, echo: true, extraArgs: process.argv.slice(2) });
  outcomes.push(outcome);
  const required = tally(outcome.required);
  const auth = tally(outcome.auth);
  const unscored = tally(outcome.unscored);

  console.log(`\n=== Roundtrip client conformance, requirement set ${revision} ===`);
  console.log(
    `Required scenarios: ${required.scenariosPassed} passed, ${required.scenariosFailed + outcome.missing.length} failed (of ${outcome.requirements.client.length})`,
  );
  console.log(
    `Required checks: ${required.checksPassed} passed, ${required.checksFailed} failed, ${required.warnings} warnings`,
  );
  for (const result of outcome.required.filter((result) => !scenarioPassed(result))) {
    for (const check of checksWith(result, "FAILURE")) {
      console.log(`  ✗ ${result.scenario} / ${check.id}: ${check.errorMessage ?? check.description ?? ""}`);
    }
  }
  console.log(
    `  of which auth/* (the OAuth client): ${auth.scenariosPassed} passed, ${auth.scenariosFailed} failed; checks ${auth.checksPassed} passed, ${auth.checksFailed} failed`,
  );
  for (const name of outcome.missing) console.log(`  ✗ ${name}: no results were written`);
  console.log(
    `Not scored: ${unscored.scenariosPassed} passed, ${unscored.scenariosFailed} failed (${outcome.unscored.length} run)`,
  );
  console.log(`Results: ${outcome.run.outputDir}`);

  const failed = outcome.run.exitCode !== 0 || required.scenariosFailed > 0 || outcome.missing.length > 0;
  if (failed && exitCode === 0) exitCode = outcome.run.exitCode || 1;
}
const everyScenarioPassed = await reportEveryScenario(
  "client",
  outcomes.map((outcome) => outcome.requirements),
  outcomes.map((outcome) => outcome.run),
  (scenario) => runClientScenario(scenario),
);
process.exitCode = exitCode || (everyScenarioPassed ? 0 : 1);
