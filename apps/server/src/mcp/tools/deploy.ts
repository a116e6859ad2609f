import {
  acceptedContent,
  elicitForm,
  elicitUrl,
  type InputContext,
  inputRequired,
  inputResponse,
  type McpServer,
  toElicitationSchema,
} from "@roundtrip/sdk";
import * as z from "zod";
import { newRelease, readDeployState, writeDeployState } from "./deploy-state.js";

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

function deployStep(args: Args, ctx: InputContext, options: DeployOptions) {
  const state = readDeployState(ctx.requestState);
  if (state === undefined) return askConfirmation(args, newRelease());
  const { release } = state;
  if (state.step === "confirm") {
    const answer = inputResponse(ctx.inputResponses, CONFIRM);
    if (answer.kind === "declined" || answer.kind === "cancelled")
      return `Deployment of ${release} ${answer.kind}`;
    const content = acceptedContent(ctx.inputResponses, CONFIRM, Confirm);
    // No answer yet (or a retry without one): ask the same question again, for the same release.
    if (content === undefined) return askConfirmation(args, release);
    if (!content.confirm) return `Release ${release} was not deployed`;
    return askApproval(args, release, options);
  }
  const approval = inputResponse(ctx.inputResponses, APPROVAL);
  if (approval.kind === "declined" || approval.kind === "cancelled") {
    return `Release ${release} was not approved (${approval.kind}); nothing was deployed`;
  }
  if (approval.kind !== "accepted") return askApproval(args, release, options);
  return `Deployed ${release} of ${args.service} to ${args.env}`;
}

/**
 * Hand-built form over three rounds: a confirmation form, then approval through a URL the user opens,
 * then the deployment. The step and the release ride in the tool's own (sealed) requestState.
 */
export function registerDeploy(mcp: McpServer, options: DeployOptions): void {
  mcp.tool(
    "deploy",
    {
      title: "Deploy a service",
      description: "Deploys a service after a confirmation and an approval; needs the deploy scope",
      input: Input,
      annotations: { destructiveHint: true, openWorldHint: false },
    },
    (args, ctx) => deployStep(args, ctx, options),
  );
}
