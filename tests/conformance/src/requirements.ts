import { runCli } from "./conformance-cli.js";

/** What a spec revision's frozen requirement set asks for, as `conformance list --requirements` prints it. */
export interface Requirements {
  revision: string;
  server: string[];
  client: string[];
  notScored: { scenario: string; leg: "server" | "client"; reason: string }[];
}

/**
 * The tasks extension's scenarios (`io.modelcontextprotocol/tasks`). The suite runs them with the
 * 2026-07-28 set without scoring them; the fixture serves the extension, and the server test holds each
 * one to passing by name. `tasks-status-notifications` is all skipped by the suite itself for now.
 */
export const TASKS_SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
] as const;

const ITEM = /^\s+- (\S+)$/;
const NOT_SCORED_ITEM = /^\s+- (\S+) \[(server|client)\]$/;
const REASON = /^\s{2}(\S[^(]*) \(\d+\):$/;

export function parseRequirementsListing(revision: string, listing: string): Requirements {
  const requirements: Requirements = { revision, server: [], client: [], notScored: [] };
  let section: "server" | "client" | "notScored" | undefined;
  let reason = "";
  for (const line of listing.split(/\r?\n/)) {
    if (line.startsWith("Server scenarios")) section = "server";
    else if (line.startsWith("Client scenarios")) section = "client";
    else if (line.startsWith("Run and reported")) section = "notScored";
    else if (section === "notScored") {
      const reasonMatch = REASON.exec(line);
      const item = NOT_SCORED_ITEM.exec(line);
      if (reasonMatch?.[1]) reason = reasonMatch[1];
      else if (item?.[1] && (item[2] === "server" || item[2] === "client")) {
        requirements.notScored.push({ scenario: item[1], leg: item[2], reason });
      }
    } else if (section) {
      const item = ITEM.exec(line);
      if (item?.[1]) requirements[section].push(item[1]);
    }
  }
  if (requirements.server.length === 0 && requirements.client.length === 0) {
    throw new Error(`conformance list printed no scenarios for ${revision}; has its output format changed?`);
  }
  return requirements;
}

export async function listRequirements(revision: string): Promise<Requirements> {
  const output = await runCli(["list", "--requirements", revision]);
  if (output.exitCode !== 0) {
    throw new Error(
      `conformance list --requirements ${revision} failed (${output.exitCode}): ${output.stderr}`,
    );
  }
  return parseRequirementsListing(revision, output.stdout);
}

/**
 * Scenarios outside every requirement set, which Roundtrip holds to passing by name, run one
 * `--scenario` at a time: the skills extension (io.modelcontextprotocol/skills), and on the client the
 * 2025-03-26 authorization scenarios.
 */
export const BY_NAME_SCENARIOS = {
  server: ["sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest"],
  client: [
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
    // 2025-03-26 authorization, which no requirement set of a current revision runs: a server without
    // protected resource metadata, its own authorization server at its origin.
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
  ],
} as const;

/**
 * Scenarios of the pinned suite Roundtrip cannot pass, each with the reason. Every other scenario the
 * suite lists, scored or not, is held to passing by name; these are run by name too and held to still
 * failing, so one that starts passing must be moved out of here.
 */
export const CANNOT_PASS: { readonly [leg in "server" | "client"]: Readonly<Record<string, string>> } = {
  server: {},
  client: {},
};

/** Every scenario the pinned suite has, per leg, as `conformance list` prints them. */
export interface ScenarioListing {
  server: string[];
  client: string[];
}

export function parseScenarioListing(listing: string): ScenarioListing {
  const scenarios: ScenarioListing = { server: [], client: [] };
  let section: "server" | "client" | undefined;
  for (const line of listing.split(/\r?\n/)) {
    if (line.startsWith("Server scenarios")) section = "server";
    else if (line.startsWith("Client scenarios")) section = "client";
    else if (/^\S/.test(line)) section = undefined;
    else if (section) {
      const item = /^\s+- (\S+)(?: \[.*\])?$/.exec(line);
      if (item?.[1]) scenarios[section].push(item[1]);
    }
  }
  if (scenarios.server.length === 0 || scenarios.client.length === 0) {
    throw new Error("conformance list printed no server or client scenarios; has its output format changed?");
  }
  return scenarios;
}

export async function listScenarios(): Promise<ScenarioListing> {
  const output = await runCli(["list"]);
  if (output.exitCode !== 0)
    throw new Error(`conformance list failed (${output.exitCode}): ${output.stderr}`);
  return parseScenarioListing(output.stdout);
}

/** How Roundtrip runs one scenario of the suite, and what it holds it to. */
export type ScenarioPlan =
  | { kind: "requirement-set"; revision: string; scored: boolean }
  | { kind: "by-name" }
  | { kind: "cannot-pass"; reason: string }
  | { kind: "unnamed" };

/**
 * Where each listed scenario is run: with the first requirement set that runs it (scored, or run and
 * reported without a score), by name (BY_NAME_SCENARIOS), or nowhere because it cannot pass. A scenario
 * in none of them is `unnamed`: the suite gained it, and the tests fail until it is named here.
 */
export function planScenario(
  leg: "server" | "client",
  scenario: string,
  sets: readonly Requirements[],
): ScenarioPlan {
  const reason = CANNOT_PASS[leg][scenario];
  if (reason !== undefined) return { kind: "cannot-pass", reason };
  for (const set of sets) {
    if (set[leg].includes(scenario)) return { kind: "requirement-set", revision: set.revision, scored: true };
    if (set.notScored.some((entry) => entry.leg === leg && entry.scenario === scenario)) {
      return { kind: "requirement-set", revision: set.revision, scored: false };
    }
  }
  if ((BY_NAME_SCENARIOS[leg] as readonly string[]).includes(scenario)) return { kind: "by-name" };
  return { kind: "unnamed" };
}
