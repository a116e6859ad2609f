import {
  acceptedContent,
  elicitForm,
  elicitUrl,
  inputRequired,
  inputResponse,
  type McpServer,
  toElicitationSchema,
} from "@roundtrip/sdk";
import type { Logger } from "@roundtrip/sdk/protocol";
import type { InputContext } from "@roundtrip/sdk/server";
import * as z from "zod";
import { type ApprovalStore, displayName, type Requester } from "../../approvals/approval-store.js";
import { newRelease } from "../../approvals/release-id.js";
import type { Rollout } from "../../deployer/rollout.js";
import { rollOut } from "./deploy-rollout.js";
import { readDeployState, writeDeployState } from "./deploy-state.js";

const Input = z.object({
  service: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,39}$/)
    .describe("Service to deploy"),
  env: z.enum(["staging", "production"]).describe("Target environment"),
});
type Args = z.output<typeof Input>;

const Confirm = z.object({ confirm: z.boolean().describe("Deploy now") });

// Distinct keys per step: an answer sent under the wrong step's key is simply not read.
const CONFIRM = "confirm";
const APPROVAL = "approval";

export interface DeployOptions {
  /** Where a person reviews a release: `approvalUrl(release, args)` is shown to the user, never fetched. */
  approvalUrl: (release: string, args: Args) => string;
  /** Where the approval page records the outcome; the tool deploys only what it says is approved. */
  approvals: ApprovalStore;
  /** State-only rounds to wait for the approval before asking for the URL again. Default 5. */
  maxWaits?: number;
  /** Where the deployment is recorded. */
  logger: Logger;
  /**
   * Lets a client that declared the tasks extension run deploy as a task (the McpServer has Tasks):
   * the approval wait and the rollout then outlive the call, and its instance.
   */
  taskCapable?: boolean;
  /** How long the rollout takes, reported in steps (the task's statusMessage). Default 0. */
  rolloutMs?: number;
  /** Rolls an approved release out through the downstream deployer API; without it, only the log records it. */
  rollout?: Rollout;
}

const DEFAULT_MAX_WAITS = 5;

function requesterOf(ctx: InputContext): Requester | undefined {
  const auth = ctx.auth;
  if (auth?.issuer === undefined || auth.subject === undefined) return undefined;
  const name = auth.claims?.name;
  return {
    clientId: auth.clientId,
    issuer: auth.issuer,
    subject: auth.subject,
    ...(typeof name === "string" && name !== "" ? { name } : {}),
  };
}

function askConfirmation(args: Args, release: string) {
  return inputRequired({
    inputRequests: {
      [CONFIRM]: elicitForm(
        `Deploy ${args.service} (release ${release}) to ${args.env}?`,
        toElicitationSchema(Confirm),
      ),
    },
    requestState: writeDeployState({ step: "confirm", release }),
  });
}

function askApproval(args: Args, release: string, options: DeployOptions) {
  return inputRequired({
    inputRequests: {
      [APPROVAL]: elicitUrl(
        `Release ${release} of ${args.service} to ${args.env} needs approval: open the change review page`,
        options.approvalUrl(release, args),
      ),
    },
    requestState: writeDeployState({ step: "approve", release }),
  });
}

/** Another round with nothing to answer: the client backs off and retries with this state. */
function waitForApproval(release: string, waits: number) {
  return inputRequired({ requestState: writeDeployState({ step: "wait", release, waits }) });
}

/** A tool error: the model and the user read it, and the round ends rather than waiting on. */
function failed(text: string) {
  return { content: [{ type: "text" as const, text }], isError: true };
}

/** The approval the tool recorded is gone: waiting on would loop forever, re-asking would re-create it. */
function lostApproval(release: string) {
  return failed(
    `The approval of release ${release} is no longer on record: the approval store lost it (restarted ` +
      "empty or evicted it) or it expired an hour after it was asked for. Nothing was deployed; call " +
      "deploy again to start a new release.",
  );
}

/** The requester turned the release down on the page: it is never deployed, and the round ends. */
async function rejected(release: string, options: DeployOptions) {
  const rejection = (await options.approvals.status(release))?.rejection;
  if (rejection === undefined) return failed(`Release ${release} was rejected; nothing was deployed`);
  return failed(`Release ${release} was rejected by ${displayName(rejection.by)}: ${rejection.reason}`);
}

async function alreadyDeployed(release: string, options: DeployOptions): Promise<string> {
  const at = (await options.approvals.status(release))?.deployedAt;
  return `Release ${release} was already deployed${at === undefined ? "" : ` at ${at}`}; nothing was deployed again`;
}

/**
 * The deployment itself, once the requester's approval is in the store. The store claims the release's
 * one deployment (a record keyed by the release, set only if absent) before anything is deployed, so
 * one release deploys once, whichever instance, however many approvals and copies of the round reach it.
 * Undefined: not decided yet.
 */
async function deployIfApproved(
  args: Args,
  release: string,
  requester: Requester,
  options: DeployOptions,
  ctx: InputContext,
) {
  const outcome = await options.approvals.consume(release, requester);
  if (outcome === "lost") return lostApproval(release);
  if (outcome === "already-deployed") return alreadyDeployed(release, options);
  if (outcome === "rejected") return rejected(release, options);
  if (outcome !== "deployed") return undefined;
  await options.rollout?.({ release, service: args.service, env: args.env }, ctx.auth, ctx.signal);
  // The release id is the server's own; the arguments are the user's data and stay out of the log.
  options.logger.info({ release }, "release deployed");
  // The deployer took the release; the example then follows its rollout, reported as progress.
  await rollOut(release, options.rolloutMs ?? 0, ctx);
  return `Deployed ${release} of ${args.service} to ${args.env}`;
}

async function deployStep(args: Args, ctx: InputContext, options: DeployOptions) {
  const state = readDeployState(ctx.requestState);
  const requester = requesterOf(ctx);
  if (state === undefined) {
    const release = newRelease();
    // Recorded here, with the new id, and nowhere later: a round replayed after the store forgot the
    // record finds it lost, and cannot ask again for (and so deploy again) a release already deployed.
    if (requester !== undefined) {
      await options.approvals.ask(release, { service: args.service, env: args.env, principal: requester });
    }
    return askConfirmation(args, release);
  }
  const { release } = state;
  if (state.step === "confirm") {
    const answer = inputResponse(ctx.inputResponses, CONFIRM);
    if (answer.kind === "declined" || answer.kind === "cancelled")
      return `Deployment of ${release} ${answer.kind}`;
    const content = acceptedContent(ctx.inputResponses, CONFIRM, Confirm);
    // No answer yet (or a retry without one): ask the same question again, for the same release.
    if (content === undefined) return askConfirmation(args, release);
    if (!content.confirm) return `Release ${release} was not deployed`;
    if (requester === undefined) {
      return `Release ${release} was not deployed: approval needs a token that names a user (issuer and subject)`;
    }
    const requested = await options.approvals.request(release, requester);
    if (requested === "lost") return lostApproval(release);
    if (requested === "already-deployed") return alreadyDeployed(release, options);
    if (requested === "rejected") return rejected(release, options);
    return askApproval(args, release, options);
  }
  if (requester === undefined) return `Release ${release} was not deployed: no user to approve it`;
  if (state.step === "wait") {
    const outcome = await deployIfApproved(args, release, requester, options, ctx);
    if (outcome !== undefined) return outcome;
    const waits = (state.waits ?? 0) + 1;
    // Bounded: after maxWaits rounds the user may have closed the page, so hand them the URL again.
    return waits > (options.maxWaits ?? DEFAULT_MAX_WAITS)
      ? askApproval(args, release, options)
      : waitForApproval(release, waits);
  }
  const approval = inputResponse(ctx.inputResponses, APPROVAL);
  if (approval.kind === "declined" || approval.kind === "cancelled") {
    return `Release ${release} was not approved (${approval.kind}); nothing was deployed`;
  }
  if (approval.kind !== "accepted") return askApproval(args, release, options);
  // Accept only means the user agreed to open the page: the approval itself is in the store.
  return (await deployIfApproved(args, release, requester, options, ctx)) ?? waitForApproval(release, 1);
}

/**
 * Hand-built form over several rounds: a confirmation form, then approval through a URL the user
 * opens, then the deployment once the approval page has recorded the requester's approval (until then,
 * state-only rounds; the URL is asked again after `maxWaits` of them). The step and the release ride in
 * the tool's own (sealed) requestState. A once-tool: each round runs at most once across the fleet.
 */
export function registerDeploy(mcp: McpServer, options: DeployOptions): void {
  mcp.tool(
    "deploy",
    {
      title: "Deploy a service",
      description: "Deploys a service after a confirmation and an approval; needs the deploy scope",
      input: Input,
      annotations: { destructiveHint: true, openWorldHint: false },
      // A proxy's retry or a replay of the completing round must not deploy again.
      once: true,
      // In a task, the approval store's claim of the release is what keeps a re-run from deploying again.
      ...(options.taskCapable ? { task: "optional" as const } : {}),
    },
    (args, ctx) => deployStep(args, ctx, options),
  );
}
