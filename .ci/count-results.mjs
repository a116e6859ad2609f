// Sums the JSON reports every test runner of the run left in one folder, and in the folders under it
// (.ci/run gives each Node release one, so a suite run on two lines counts twice), lists the ten
// slowest test files of the whole run, and prints the closing line. A test file that fails outside any
// test (an import, a beforeAll) reports no failed test, only a failed file; each such file counts as
// one failure, so a broken suite never reads as green.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";

// The folder of reports, then each test run's exit status as `name=status`.
const [dir, ...runs] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
const files = [];
// Named again at the end, beside the closing line, so the tail of a long log says what failed.
const failures = [];
const written = readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
const UNHANDLED = ".unhandled-errors.json";
const reports = written.filter((name) => name.endsWith(".json") && !name.endsWith(UNHANDLED));
for (const file of reports) {
  const report = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const brokenFiles = (report.testResults ?? []).filter(
    (result) =>
      result.status === "failed" && !(result.assertionResults ?? []).some((test) => test.status === "failed"),
  ).length;
  const fileFailed = (report.numFailedTests ?? 0) + brokenFiles;
  for (const result of report.testResults ?? []) {
    if (typeof result.startTime === "number" && typeof result.endTime === "number") {
      files.push({ seconds: (result.endTime - result.startTime) / 1000, name: result.name, report: file });
    }
  }
  for (const result of report.testResults ?? []) {
    const tests = (result.assertionResults ?? []).filter((test) => test.status === "failed");
    if (result.status === "failed" && tests.length === 0) {
      failures.push({ report: file, where: result.name, what: "(outside any test)", why: result.message });
    }
    for (const test of tests) {
      failures.push({
        report: file,
        where: result.name,
        what: test.fullName,
        why: test.failureMessages?.[0],
      });
    }
  }
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
// An error caught outside any test fails its run though every test passed: each counts as a failure.
for (const file of written.filter((name) => name.endsWith(UNHANDLED))) {
  const { unhandledErrors } = JSON.parse(readFileSync(join(dir, file), "utf8"));
  failed += unhandledErrors.length;
  for (const error of unhandledErrors) {
    const report = file.slice(0, -UNHANDLED.length);
    console.log(`${report}: unhandled error outside any test: ${error}`);
    failures.push({ report, where: undefined, what: "an error outside any test", why: String(error) });
  }
}
// A run that failed without a failed test or an error of its own above (a crashed runner, a task that
// is not a test) still fails the whole: it counts once, named, so the closing line cannot read green
// over it, whatever the other runs did. A run's reports are the folder named after it.
for (const run of runs) {
  const [name, status] = run.split("=");
  const own = failures.filter(({ report }) => report === name || report.startsWith(`${name}/`));
  if (status !== "0" && own.length === 0) {
    failed += 1;
    const why = `exited with status ${status} though no test of it failed; its log above says why`;
    console.log(`${name}: ${why}`);
    failures.push({ report: name, where: undefined, what: "the run itself", why });
  }
}
const root = process.cwd();
console.log("slowest test files:");
for (const { seconds, name, report } of files.sort((a, b) => b.seconds - a.seconds).slice(0, 10)) {
  const where = name.startsWith(`${root}/`) ? name.slice(root.length + 1) : name;
  console.log(`  ${seconds.toFixed(1).padStart(6)}s  ${where}  (${report.replace(/\.json$/, "")})`);
}
if (failures.length > 0) {
  console.log("failed tests:");
  for (const { report, where, what, why } of failures) {
    const file = where?.startsWith(`${root}/`) ? where.slice(root.length + 1) : where;
    console.log(`  ${file === undefined ? "" : `${file} `}(${report.replace(/\.json$/, "")}): ${what}`);
    // The first lines of the reason, without the colours a terminal would draw.
    const reason = stripVTControlCharacters(String(why ?? ""))
      .split("\n")
      .slice(0, 6);
    for (const line of reason) console.log(`      ${line}`);
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
