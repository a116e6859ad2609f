import type { OnceFlow } from "./once-flows.js";

/** What one fault did to the once-flows driven through it, counted from what the handlers did. */
export interface FaultFigures {
  program: string;
  fault: string;
  flows: number;
  /** Flows whose effect happened exactly once. */
  ranOnce: number;
  /** Rounds the servers turned away with an error during the fault, each then sent again. */
  refusedRounds: number;
  /** The refusals by kind: unavailable, unconfirmed, in-progress, other. */
  refusals: Record<string, number>;
  /**
   * Flows the server ended without an answer and without a counted effect: told their round's outcome
   * is unknown (its handler may have run, once; it never runs again) or their state was refused.
   */
  endedUnanswered: number;
  /** Effects that happened more than once: a deploy's release logged twice, or more creations than flows. */
  double: number;
  /** Deploys whose approval the page recorded, answered by the tool without a deployment. */
  approvalsLost: number;
}

/** What the fleet's handlers logged: each deployment under its release, creations by count only. */
export interface Effects {
  /** How many times `release` was deployed. */
  deployed(release: string): number;
  /** Services created since the fault's flows began (create_service logs no name: the user's data). */
  created: number;
}

/**
 * A deploy counts exactly, by its release. create_service logs no identifier, so creations are
 * counted against the flows that could have made one: those answered "Created service …" and those
 * whose outcome the server called unknown; any creation beyond them is a double.
 */
export function tally(
  program: string,
  fault: string,
  flows: readonly OnceFlow[],
  effects: Effects,
): FaultFigures {
  const deploys = flows.filter((flow) => flow.tool === "deploy");
  const creates = flows.filter((flow) => flow.tool === "create_service");
  const timesDeployed = deploys.map((flow) => (flow.release ? effects.deployed(flow.release) : 0));
  const created = creates.filter((flow) => flow.end === "answered" && /^Created service /.test(flow.outcome));
  const unknown = creates.filter((flow) => flow.end === "outcome-unknown").length;
  const refusals: Record<string, number> = {};
  for (const refusal of flows.flatMap((flow) => flow.refusals))
    refusals[refusal] = (refusals[refusal] ?? 0) + 1;
  return {
    program,
    fault,
    flows: flows.length,
    ranOnce: timesDeployed.filter((times) => times === 1).length + Math.min(created.length, effects.created),
    refusedRounds: flows.reduce((sum, flow) => sum + flow.refusals.length, 0),
    refusals,
    endedUnanswered:
      deploys.filter((flow, i) => flow.end !== "answered" && timesDeployed[i] === 0).length +
      creates.filter((flow) => flow.end !== "answered").length,
    double:
      timesDeployed.reduce((sum, times) => sum + Math.max(0, times - 1), 0) +
      Math.max(0, effects.created - created.length - unknown),
    approvalsLost: deploys.filter(
      (flow, i) => flow.approved && flow.end === "answered" && timesDeployed[i] === 0,
    ).length,
  };
}

/** The figures as a table, one fault a row, to print and quote. */
export function faultTable(rows: readonly FaultFigures[]): string {
  const header = [
    "program",
    "fault",
    "flows",
    "ran once",
    "refused rounds",
    "ended unanswered",
    "double",
    "approvals lost",
  ];
  const lines = rows.map((row) => [
    row.program,
    row.fault,
    String(row.flows),
    String(row.ranOnce),
    `${row.refusedRounds} (${Object.entries(row.refusals)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(", ")})`,
    String(row.endedUnanswered),
    String(row.double),
    String(row.approvalsLost),
  ]);
  return [header, header.map(() => "---"), ...lines].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}
