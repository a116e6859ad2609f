import { checksWith, scenarioPassed, tally } from "./conformance-cli.js";
import { REVISION, runServerConformance } from "./server-run.js";

/**
 * `pnpm conformance:server`: the official suite against Roundtrip's fixture server. Extra arguments
 * go to the CLI (e.g. `-o results/server` to keep the per-scenario checks, or `--verbose`).
 */

const outcome = await runServerConformance({ echo: true, extraArgs: process.argv.slice(2) });
const required = tally(outcome.required);
const unscored = tally(outcome.unscored);

console.log(`\n=== Roundtrip server conformance, requirement set ${REVISION} ===`);
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

const failed = outcome.run.exitCode !== 0 || required.scenariosFailed > 0 || outcome.missing.length > 0;
process.exitCode = failed ? outcome.run.exitCode || 1 : 0;
