/**
 * Instructions per flow of a target server, counted by callgrind: repeatable however busy the
 * machine is, where CPU time per flow is not. The server runs under valgrind in its own process;
 * this process drives it with exactly `--flows` greet flows (after `--warmup` flows) on
 * `--concurrency` connections, then stops it, and prints what callgrind collected. Two runs that
 * differ only in `--flows` cancel start-up and warm-up:
 *
 *   pnpm --filter @roundtrip/bench run build:harness
 *   node bench/dist/count-server.js roundtrip-server-sealed --flows 1000
 *   node bench/dist/count-server.js roundtrip-server-sealed --flows 3000   # (b − a) / 2000 per flow
 *
 * Valgrind counts user-space instructions only: syscalls and the kernel's side of the sockets are
 * left out, on every target alike.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cliArgs, parsePositive } from "./cli/args.js";
import { FLOWS } from "./driver/flows.js";
import { createPostClient } from "./driver/http-client.js";
import { isTagged, type ServerMessage } from "./proc/messages.js";
import { isServerKind } from "./targets/catalog.js";
import { BENCH_HOST } from "./targets/listen.js";

const SERVER_SCRIPT = fileURLToPath(new URL("./targets/child.js", import.meta.url));

const { values, positionals } = parseArgs({
  args: cliArgs(),
  allowPositionals: true,
  options: {
    flows: { type: "string", default: "1000" },
    warmup: { type: "string", default: "500" },
    concurrency: { type: "string", default: "16" },
  },
});
const kind = positionals[0] ?? "";
if (!isServerKind(kind)) throw new Error(`unknown server kind "${kind}"`);
const flows = parsePositive(values.flows, "--flows");
const warmup = Number(values.warmup);
const concurrency = parsePositive(values.concurrency, "--concurrency");

const child = spawn(
  "valgrind",
  ["--tool=callgrind", "--callgrind-out-file=/dev/null", process.execPath, SERVER_SCRIPT, kind],
  { stdio: ["ignore", "ignore", "pipe", "ipc"] },
);
let report = "";
child.stderr?.on("data", (chunk: Buffer) => {
  report += chunk.toString("utf8");
});
const port = await new Promise<number>((resolve, reject) => {
  child.on("message", (message: unknown) => {
    if (isTagged<ServerMessage>(message) && message.type === "ready") resolve(message.port);
    if (isTagged<ServerMessage>(message) && message.type === "failed") reject(new Error(message.message));
  });
  child.once("exit", (code) =>
    reject(new Error(`the server exited (${code}) before it was ready:\n${report}`)),
  );
});

const client = createPostClient(BENCH_HOST, port, { sockets: concurrency, timeoutMs: 600_000 });
let next = 0;
/** `concurrency` loops share one counter, so exactly `total` flows run, each with a fresh name. */
async function run(total: number): Promise<void> {
  const end = next + total;
  const loop = async (): Promise<void> => {
    while (next < end) await FLOWS.greet(client, ++next);
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
}
await run(warmup);
await run(flows);
client.close();
const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
child.send({ type: "stop" });
await exited;
const collected = /Collected\s*:\s*(\d+)/.exec(report)?.[1];
console.log(`${kind}: ${warmup} + ${flows} flows, ${collected ?? "?"} instructions`);
