import { acceptedContent, elicitForm, inputRequired, McpServer, toElicitationSchema } from "@roundtrip/sdk";
import * as z from "zod";

const mcp = new McpServer({ name: "ops", version: "1.0.0" });
const Confirm = z.object({ confirm: z.boolean() });

// A stand-in for your deployment service: next() plans a release id, ship(release, env) deploys it.
let lastRelease = 0;
const releases = {
  next: () => `r${++lastRelease}`,
  ship: (release: string, env: string) => console.log(`shipping ${release} to ${env}`),
};

mcp.tool("deploy", { input: z.object({ env: z.enum(["staging", "prod"]) }) }, ({ env }, ctx) => {
  // This handler's requestState is its own: it says which step, and which release, an answer is for.
  const [step, release] = (ctx.requestState ?? "plan").split(":");
  if (step === "plan" || !release) {
    const planned = releases.next();
    return inputRequired({
      inputRequests: { confirm: elicitForm(`Deploy ${planned} to ${env}?`, toElicitationSchema(Confirm)) },
      requestState: `confirm:${planned}`,
    });
  }
  const answer = acceptedContent(ctx.inputResponses, "confirm", Confirm);
  if (!answer?.confirm) return `Release ${release} was not deployed`;
  releases.ship(release, env);
  return `Deployed ${release} to ${env}`;
});
