import { strict as assert } from "node:assert";
import { ask, Client, McpServer, resolver } from "@roundtrip/sdk";
import type { ElicitCallback } from "@roundtrip/sdk/client";
import * as z from "zod";

// The server under test: the provisioning tool of asking-the-user.md.
const mcp = new McpServer({ name: "infra", version: "1.0.0" });
const Region = z.object({ region: z.enum(["eu-west-1", "us-east-1"]) });
const region = resolver(({ args }: { args: { service: string } }) =>
  ask.elicit(`Where should ${args.service} run?`, Region),
);
mcp.tool(
  "provision",
  { input: z.object({ service: z.string() }), resolve: { region } },
  ({ service }, { region }) => `Provisioned ${service} in ${region.region}`,
);

// The McpServer itself is the client's target: no port, no process, every round still a full request.
async function provision(onElicit: ElicitCallback) {
  const client = new Client(mcp, { onElicit });
  try {
    return await client.callTool("provision", { service: "api" });
  } finally {
    await client.close();
  }
}

const asked: string[] = [];
const accepted = await provision((request) => {
  asked.push(request.message);
  return { action: "accept", content: { region: "eu-west-1" } };
});
assert.deepEqual(accepted.content, [{ type: "text", text: "Provisioned api in eu-west-1" }]);
assert.deepEqual(asked, ["Where should api run?"]);

const declined = await provision(() => ({ action: "decline" }));
assert.equal(declined.isError, true);
console.log("provision asks once, and a decline is a tool error"); // "provision asks once, and a decline is a tool error"
