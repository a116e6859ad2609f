// Sums the JSON reports every test runner of the run left in one folder, and in the folders under it
// (.ci/run gives each Node release one, so a suite run on two lines counts twice), and prints the
// closing line. A test file that fails outside any test (an import, a beforeAll) reports no failed
// test, only a failed file; each such file counts as one failure, so a broken suite never reads as green.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
let passed = 0;
let failed = 0;
let skipped = 0;
const reports = readdirSync(dir, { recursive: true, encoding: "utf8" })
  .filter((name) => name.endsWith(".json"))
  .sort();
for (const file of reports) {
  const report = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const brokenFiles = (report.testResults ?? []).filter(
    (result) =>
      result.status === "failed" && !(result.assertionResults ?? []).some((test) => test.status === "failed"),
  ).length;
  const fileFailed = (report.numFailedTests ?? 0) + brokenFiles;
  passed += report.numPassedTests ?? 0;
  failed += fileFailed;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(
    `${file}: ${report.numPassedTests ?? 0} passed, ${fileFailed} failed` +
      (brokenFiles > 0
        ? ` (${brokenFiles} test file${brokenFiles > 1 ? "s" : ""} failed before its tests ran)`
        : ""),
  );
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
