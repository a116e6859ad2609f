import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import * as z from "zod";

/** Reading what the conformance CLI writes with `-o DIR`: one folder per scenario, each with checks.json. */

export const CheckStatusSchema = z.enum(["SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"]);
export type CheckStatus = z.infer<typeof CheckStatusSchema>;

export const CheckSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  status: CheckStatusSchema,
  errorMessage: z.string().optional(),
  details: z.unknown().optional(),
});
export type Check = z.infer<typeof CheckSchema>;

export interface ScenarioResult {
  scenario: string;
  /** The folder the suite wrote this scenario's checks.json into. */
  dir: string;
  checks: Check[];
}

export type Leg = "server" | "client" | "authorization";

/** Folder names are `<prefix><scenario>-<ISO time with : and . replaced by ->`. */
const TIMESTAMP_SUFFIX = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const LEG_PREFIX: Record<Leg, string> = {
  server: "server-",
  client: "",
  authorization: "authorization-server-",
};

async function findCheckFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name === "checks.json")
    .map((entry) => join(entry.parentPath, entry.name));
}

function scenarioOf(outputDir: string, folder: string, leg: Leg): string | undefined {
  // Client scenarios such as auth/metadata-default become nested folders.
  const name = relative(outputDir, folder).split(sep).join("/");
  const prefix = LEG_PREFIX[leg];
  if (!TIMESTAMP_SUFFIX.test(name) || !name.startsWith(prefix)) return undefined;
  return name.slice(prefix.length).replace(TIMESTAMP_SUFFIX, "");
}

/** Every scenario result under `outputDir`; when a scenario ran more than once, its latest run. */
export async function readResults(outputDir: string, leg: Leg): Promise<ScenarioResult[]> {
  const latest = new Map<string, ScenarioResult>();
  for (const file of (await findCheckFiles(outputDir)).sort()) {
    const dir = join(file, "..");
    const scenario = scenarioOf(outputDir, dir, leg);
    if (scenario === undefined) continue;
    const checks = z.array(CheckSchema).parse(JSON.parse(await readFile(file, "utf8")));
    latest.set(scenario, { scenario, dir, checks });
  }
  return [...latest.values()].sort((a, b) => a.scenario.localeCompare(b.scenario));
}

export function checksWith(result: ScenarioResult, status: CheckStatus): Check[] {
  return result.checks.filter((check) => check.status === status);
}

/** Passed means what the suite's exit code means: no check failed. */
export function scenarioPassed(result: ScenarioResult): boolean {
  return checksWith(result, "FAILURE").length === 0;
}

export interface Tally {
  scenariosPassed: number;
  scenariosFailed: number;
  checksPassed: number;
  checksFailed: number;
  warnings: number;
}

export function tally(results: readonly ScenarioResult[]): Tally {
  const total: Tally = {
    scenariosPassed: 0,
    scenariosFailed: 0,
    checksPassed: 0,
    checksFailed: 0,
    warnings: 0,
  };
  for (const result of results) {
    if (scenarioPassed(result)) total.scenariosPassed++;
    else total.scenariosFailed++;
    total.checksPassed += checksWith(result, "SUCCESS").length;
    total.checksFailed += checksWith(result, "FAILURE").length;
    total.warnings += checksWith(result, "WARNING").length;
  }
  return total;
}
