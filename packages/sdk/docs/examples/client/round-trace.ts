import { Client, type RoundTrace } from "@roundtrip/sdk";

const client = new Client("http://localhost:3000/mcp", {
  onElicit: () => ({ action: "accept", content: { region: "eu-west-1" } }),
});
const audit: RoundTrace[] = [];
await client.callTool("provision", { service: "api" }, { onRoundTrace: (trace) => audit.push(trace) });
for (const { round, outcome, requests, serverMs, answerMs } of audit) {
  const asked = requests.map(({ key, answeredBy }) => `${key} by ${answeredBy}`).join(", ");
  console.log(`round ${round}: ${outcome} [${asked}] server ${serverMs} ms, answers ${answerMs} ms`);
}
