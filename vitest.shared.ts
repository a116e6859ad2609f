import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * One vitest configuration for every workspace package. When ROUNDTRIP_TEST_RESULTS names a folder
 * (as .ci/run does), each package also writes a JSON report there so the CI script can sum the
 * passed and failed counts over the whole run.
 */
export function roundtripVitestConfig(name: string, options: { testTimeout?: number } = {}) {
  const resultsDir = process.env.ROUNDTRIP_TEST_RESULTS;
  return defineConfig({
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 60_000,
      hookTimeout: 120_000,
      reporters: resultsDir
        ? ["default", ["json", { outputFile: join(resultsDir, `${name}.json`) }]]
        : ["default"],
    },
  });
}
