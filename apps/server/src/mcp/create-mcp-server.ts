import { McpServer } from "@roundtrip/sdk";
import type { Logger } from "@roundtrip/sdk/protocol";
import type { NotificationBus, OnceStore, SessionRegistry, Tasks } from "@roundtrip/sdk/server";
import type { RequestStateSecurity } from "@roundtrip/sealing";
import type { ApprovalStore } from "../approvals/approval-store.js";
import type { Rollout } from "../deployer/rollout.js";
import { registerIncidentBrief } from "./prompts/incident-brief.js";
import { registerServiceStatus } from "./resources/service-status.js";
import { registerDeployRunbook } from "./skills/deploy-runbook.js";
import { registerCreateService } from "./tools/create-service.js";
import { registerDeploy } from "./tools/deploy.js";
import { registerListWorkspace } from "./tools/list-workspace.js";
import { registerSummarize } from "./tools/summarize.js";

export interface McpServerSettings {
  /** Also the audience of sealed requestState: every instance of a fleet must use the same one. */
  name: string;
  version: string;
  security: RequestStateSecurity;
  logger: Logger;
  /** Where the deploy tool sends people to approve a release. */
  approvalUrl: (release: string) => string;
  /** Pending and granted deploy approvals; shared by every instance of a fleet. */
  approvals: ApprovalStore;
  /** How the deploy tool rolls approved releases out; default: recorded in the log only. */
  rollout?: Rollout;
  /** The ledger of rounds that run once (deploy, create_service); shared by every instance of a fleet. */
  onceStore: OnceStore;
  /** Seconds a once-round's lease holds unless renewed (the SDK's `once.lease`; default 30). */
  onceLeaseSeconds?: number;
  /** List changes and 2025-era sessions across a fleet; both default to this process. */
  bus?: NotificationBus;
  sessions?: SessionRegistry;
  /** The tasks extension: deploy runs as a task for a client that declared it. */
  tasks?: Tasks;
  /** How long deploy's rollout takes (default instant). */
  deployRolloutMs?: number;
}

const INSTRUCTIONS =
  "Reference server for multi round-trip requests. Tools ask the user (forms and a URL), the model " +
  "(sampling) and the client (roots) for what they need; deploy needs the deploy scope.";

/** The MCP server with the example tools, prompt, resource template and skill registered. */
export function createMcpServer(settings: McpServerSettings): McpServer {
  const mcp = new McpServer(
    { name: settings.name, version: settings.version },
    {
      requestStateSecurity: settings.security,
      logger: settings.logger,
      instructions: INSTRUCTIONS,
      once: {
        store: settings.onceStore,
        ...(settings.onceLeaseSeconds === undefined ? {} : { lease: settings.onceLeaseSeconds }),
      },
      ...(settings.bus ? { bus: settings.bus } : {}),
      ...(settings.sessions ? { legacy: { sessions: settings.sessions } } : {}),
      ...(settings.tasks ? { tasks: settings.tasks } : {}),
    },
  );
  registerCreateService(mcp, settings.logger);
  registerSummarize(mcp);
  registerListWorkspace(mcp);
  registerDeploy(mcp, {
    approvalUrl: (release) => settings.approvalUrl(release),
    approvals: settings.approvals,
    logger: settings.logger,
    taskCapable: settings.tasks !== undefined,
    ...(settings.deployRolloutMs === undefined ? {} : { rolloutMs: settings.deployRolloutMs }),
    ...(settings.rollout ? { rollout: settings.rollout } : {}),
  });
  registerIncidentBrief(mcp);
  registerServiceStatus(mcp);
  registerDeployRunbook(mcp);
  return mcp;
}
