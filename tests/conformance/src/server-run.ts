import { type ConformanceRun, runConformance, type ScenarioResult } from "./conformance-cli.js";
import { listRequirements, type Requirements } from "./requirements.js";
import { type FixtureListenOptions, startFixture } from "./server-fixture/http.js";

/** The requirement sets the server is judged by: the current revision, and the 2025 era it also serves. */
export const REVISIONS = ["2026-07-28", "2025-11-25"] as const;
export type Revision = (typeof REVISIONS)[number];
export const REVISION: Revision = "2026-07-28";

export interface ServerConformance {
  requirements: Requirements;
  run: ConformanceRun;
  /** Results of the scenarios the revision requires, in the requirement set's order. */
  required: ScenarioResult[];
  /** Required scenarios the run wrote no results for. */
  missing: string[];
  /** Everything else the run reported (extensions, pending scenarios). */
  unscored: ScenarioResult[];
}

export interface ServerRunOptions {
  echo?: boolean;
  outputDir?: string;
  extraArgs?: readonly string[];
  /** The requirement set, when the caller already listed it. */
  requirements?: Requirements;
  fixture?: FixtureListenOptions;
  /** Which requirement set to run. Default: the current revision. */
  revision?: Revision;
}

/**
 * Starts the fixture on loopback, points the official suite at it with the revision's frozen
 * requirement set and no expected-failures baseline, and stops the fixture again.
 */
export async function runServerConformance(options: ServerRunOptions = {}): Promise<ServerConformance> {
  const revision = options.revision ?? REVISION;
  const requirements = options.requirements ?? (await listRequirements(revision));
  const fixture = await startFixture(options.fixture);
  try {
    const run = await runConformance(
      ["server", "--url", fixture.url, "--requirements", revision, ...(options.extraArgs ?? [])],
      { echo: options.echo ?? false, ...(options.outputDir ? { outputDir: options.outputDir } : {}) },
    );
    const byScenario = new Map(run.scenarios.map((result) => [result.scenario, result]));
    const requiredNames = new Set(requirements.server);
    return {
      requirements,
      run,
      required: requirements.server.flatMap((name) => byScenario.get(name) ?? []),
      missing: requirements.server.filter((name) => !byScenario.has(name)),
      unscored: run.scenarios.filter((result) => !requiredNames.has(result.scenario)),
    };
  } finally {
    await fixture.close();
  }
}

/** Runs one scenario by name (an extension scenario outside the requirement sets) against the fixture. */
export async function runServerScenario(
  scenario: string,
  options: Pick<ServerRunOptions, "echo" | "fixture"> = {},
): Promise<ConformanceRun> {
  const fixture = await startFixture(options.fixture);
  try {
    return await runConformance(["server", "--url", fixture.url, "--scenario", scenario], {
      echo: options.echo ?? false,
    });
  } finally {
    await fixture.close();
  }
}
