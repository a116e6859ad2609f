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
 * Extension scenarios outside every requirement set, which Roundtrip holds to passing by name: the
 * skills extension (io.modelcontextprotocol/skills), run one `--scenario` at a time.
 */
export const EXTENSION_SCENARIOS = {
  server: ["sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest"],
  client: [
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
  ],
} as const;
