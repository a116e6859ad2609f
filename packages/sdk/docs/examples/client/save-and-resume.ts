import { readFile, writeFile } from "node:fs/promises";
import { Client, type SavedRound } from "@roundtrip/sdk";

const url = "http://localhost:3000/mcp";
// Driving the answers by hand, the client declares what it will answer.
const options = { capabilities: { elicitation: { form: {} } } };

const job = new Client(url, options);
const outcome = await job.runRounds(
  { method: "tools/call", params: { name: "deploy", arguments: { env: "prod" } } },
  {
    onRound: (round) => {
      console.log(`round ${round.round}: ${Object.keys(round.result.inputRequests ?? {}).join(", ")}`);
      return { kind: "stop" };
    },
  },
);
if (outcome.kind === "stopped") await writeFile("deploy.json", JSON.stringify(outcome.saved));

// Later, in another process, once the release was approved:
const saved = JSON.parse(await readFile("deploy.json", "utf8")) as SavedRound<"tools/call">;
const resumed = await new Client(url, options).runRounds(saved, {
  onRound: (round) =>
    round.round === saved.round
      ? { kind: "answer", inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }
      : { kind: "stop" },
});
if (resumed.kind === "complete") console.log(resumed.result.content);
