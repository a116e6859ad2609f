import { ask, type McpServer, resolver } from "@roundtrip/sdk";
import type { Logger } from "@roundtrip/sdk/protocol";
import type { ResolverInput } from "@roundtrip/sdk/server";
import * as z from "zod";

const Input = z.object({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,39}$/)
    .describe("Service name: lowercase letters, digits and dashes"),
});
type Args = z.output<typeof Input>;

const Runtime = z.object({
  runtime: z.enum(["node20", "node22", "python3.12"]).describe("Runtime"),
});
const Tier = z.object({
  tier: z.enum(["small", "medium", "large"]).describe("Instance size"),
});
const Confirm = z.object({ confirm: z.boolean().describe("Create it") });

// runtime and tier depend on nothing, so the client sees both questions in the same round.
const runtime = resolver(({ args }: { args: Args }) =>
  ask.elicit(`Which runtime should ${args.name} use?`, Runtime),
);
const tier = resolver(({ args }: { args: Args }) =>
  ask.elicit(`Which size should ${args.name} run on?`, Tier),
);

type Choices = { runtime: typeof runtime; tier: typeof tier };

// Asked only once both answers are known, since its wording quotes them.
const confirmation = resolver(
  { runtime, tier },
  ({ runtime, tier, args }: ResolverInput<Choices, Args>) =>
    ask.elicit(`Create ${args.name} on ${runtime.runtime}, size ${tier.tier}?`, Confirm),
  { onDecline: "outcome" },
);

/** Resolver form: the SDK batches the independent choices, then asks the dependent confirmation. */
export function registerCreateService(mcp: McpServer, logger: Logger): void {
  mcp.tool(
    "create_service",
    {
      title: "Create a service",
      description: "Creates a service after asking for its runtime and size, then for confirmation",
      input: Input,
      resolve: { runtime, tier, confirmation },
      // Creating is the side effect: a replayed completing round gets the first outcome, not a second service.
      once: true,
    },
    ({ name }, { runtime, tier, confirmation }) => {
      if (confirmation.action !== "accept" || !confirmation.content.confirm) {
        return `Service ${name} was not created`;
      }
      // The example's stand-in for the side effect a real tool has. Arguments and answers are the
      // user's data: the log says that it happened, never with what.
      logger.info({}, "service created");
      return `Created service ${name} on ${runtime.runtime}, size ${tier.tier}`;
    },
  );
}
