import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ConformanceRun, runConformance, type ScenarioResult } from "../conformance-cli.js";
import { listRequirements, type Requirements } from "../requirements.js";

export const REVISION = "2026-07-28";

/** The 2025-era requirement set: the same fixture, speaking to 2025-era mock servers through `era: "auto"`. */
export const LEGACY_REVISION = "2025-11-25";

/** Every requirement set the fixture client is held to, newest first. */
export const REVISIONS: readonly string[] = [REVISION, LEGACY_REVISION];

/**
 * The command the suite runs once per scenario (it appends the mock server's URL): this Node and the
 * fixture compiled to JavaScript, each quoted, since the suite hands the command line to a shell. The
 * suite starts dozens of clients at once; a precompiled fixture starts fast enough that its mock
 * servers do not time out idle connections on a loaded two-core machine, as they did under tsx.
 */
export function fixtureCommand(): string {
  const fixture = fileURLToPath(new URL("../../dist/client/fixture.js", import.meta.url));
  if (!existsSync(fixture)) {
    throw new Error(
      `${fixture} is missing: build the conformance package first (pnpm --filter @roundtrip/conformance build)`,
    );
  }
  return [process.execPath, fixture].map((part) => `"${part}"`).join(" ");
}

/**
 * How long the suite lets one fixture client run. Its default, 30 s, is cut close on a two-core machine
 * running the other suites: a client still starting when it is killed has made no request, and a
 * scenario that only warns about what never happened (sse-retry's Last-Event-ID) exits 0, so the kill
 * shows up as a false warning instead of a timeout. A hung client still fails, two minutes later.
 */
const CLIENT_TIMEOUT_MS = 120_000;

export interface ClientConformance {
  requirements: Requirements;
  run: ConformanceRun;
  /** Every required scenario the run reported, in the requirement set's order. */
  required: ScenarioResult[];
  /** The required auth/* scenarios (a subset of `required`): the OAuth client's share of the set. */
  auth: ScenarioResult[];
  /** Required scenarios the run wrote no results for. */
  missing: string[];
  /** Everything else the run reported (extensions, scenarios added after the release). */
  unscored: ScenarioResult[];
}

export interface ClientRunOptions {
  echo?: boolean;
  outputDir?: string;
  extraArgs?: readonly string[];
  requirements?: Requirements;
  /** The requirement set to run; REVISION by default. */
  revision?: string;
}

export const isAuthScenario = (scenario: string): boolean => scenario.startsWith("auth/");

/**
 * Runs a revision's frozen client requirement set against the fixture, with no expected-failures
 * baseline: every required scenario must pass, so the CLI's exit code is non-zero when one fails.
 */
export async function runClientConformance(options: ClientRunOptions = {}): Promise<ClientConformance> {
  const revision = options.revision ?? options.requirements?.revision ?? REVISION;
  const requirements = options.requirements ?? (await listRequirements(revision));
  const run = await runConformance(
    [
      "client",
      "--command",
      fixtureCommand(),
      "--requirements",
      revision,
      "--timeout",
      String(CLIENT_TIMEOUT_MS),
      ...(options.extraArgs ?? []),
    ],
    { echo: options.echo ?? false, ...(options.outputDir ? { outputDir: options.outputDir } : {}) },
  );
  const byScenario = new Map(run.scenarios.map((result) => [result.scenario, result]));
  const requiredNames = new Set(requirements.client);
  const present = (names: string[]) => names.flatMap((name) => byScenario.get(name) ?? []);
  return {
    requirements,
    run,
    required: present(requirements.client),
    auth: present(requirements.client.filter(isAuthScenario)),
    missing: requirements.client.filter((name) => !byScenario.has(name)),
    unscored: run.scenarios.filter((result) => !requiredNames.has(result.scenario)),
  };
}

/** Runs one client scenario by name (an extension scenario outside the requirement sets). */
export function runClientScenario(
  scenario: string,
  options: { echo?: boolean } = {},
): Promise<ConformanceRun> {
  return runConformance(
    ["client", "--command", fixtureCommand(), "--scenario", scenario, "--timeout", String(CLIENT_TIMEOUT_MS)],
    { echo: options.echo ?? false },
  );
}
