import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { UnhandledErrorsReport } from "./vitest.unhandled-errors.ts";

const UNIT_SETUP = fileURLToPath(new URL("./vitest.unit-setup.ts", import.meta.url));

export interface RoundtripTestOptions {
  testTimeout?: number;
  /** Global setup of the integration tier only (building what its child processes run). */
  integrationSetup?: string[];
}

/**
 * One vitest configuration for every workspace package, in two tiers. `unit` is the test files under
 * `src/`: in-process tests, sharing one module graph per worker (no per-file isolation), run alone by
 * `vitest run --project unit`. `integration` is the test files under `test/`: tests that start
 * processes or need services, each file isolated. When ROUNDTRIP_TEST_RESULTS names a folder (as
 * .ci/run does), each package also writes one JSON report there so the CI script can sum the passed
 * and failed counts over the whole run, and the errors caught outside any test beside it.
 */
export function roundtripVitestConfig(name: string, options: RoundtripTestOptions = {}) {
  const resultsDir = process.env.ROUNDTRIP_TEST_RESULTS;
  return defineConfig({
    test: {
      testTimeout: options.testTimeout ?? 60_000,
      hookTimeout: 120_000,
      reporters: resultsDir
        ? [
            "default",
            ["json", { outputFile: join(resultsDir, `${name}.json`) }],
            new UnhandledErrorsReport(join(resultsDir, `${name}.unhandled-errors.json`)),
          ]
        : ["default"],
      projects: [
        {
          extends: true,
          test: { name: "unit", include: ["src/**/*.test.ts"], isolate: false, setupFiles: [UNIT_SETUP] },
        },
        {
          extends: true,
          test: {
            name: "integration",
            include: ["test/**/*.test.ts"],
            globalSetup: options.integrationSetup ?? [],
          },
        },
      ],
    },
  });
}
