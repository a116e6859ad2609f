/**
 * A target server process: starts one server kind on loopback, reports its port over IPC, and stops
 * when told to (exiting normally so `--cpu-prof` can write its profile) or when the parent goes away.
 */
import { isTagged, type ServerCommand, type ServerMessage } from "../proc/messages.js";
import { isServerKind, startServer } from "./catalog.js";

function send(message: ServerMessage): void {
  process.send?.(message);
}

const kind = process.argv[2] ?? "";
if (!isServerKind(kind)) {
  send({ type: "failed", message: `unknown server kind "${kind}"` });
  process.exit(2);
}

const listening = await startServer(kind);
const stop = async (): Promise<void> => {
  await listening.close();
  process.exit(0);
};
/** Two collections: the first can leave garbage that only the second frees (weak refs, finalizers). */
function memory(): ServerMessage {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return { type: "memory", rssBytes: usage.rss, heapUsedBytes: usage.heapUsed, collected: gc !== undefined };
}
const failure = (error: unknown): string => (error instanceof Error ? error.message : String(error));
/** The harness's window on this server's redis-server, on the connection the target keeps for it. */
async function redisCounts(command: "redis-reset" | "redis-read"): Promise<ServerMessage> {
  const window = listening.redisCommands;
  try {
    if (command === "redis-reset") {
      await window?.reset();
      return { type: command, counting: window !== undefined };
    }
    return window ? { type: command, counts: await window.read() } : { type: command };
  } catch (error) {
    return command === "redis-reset"
      ? { type: command, counting: false, error: failure(error) }
      : { type: command, error: failure(error) };
  }
}
process.on("message", (message: unknown) => {
  if (!isTagged<ServerCommand>(message)) return;
  if (message.type === "stop") void stop();
  if (message.type === "memory") send(memory());
  if (message.type === "redis-reset" || message.type === "redis-read") {
    void redisCounts(message.type).then(send);
  }
});
process.once("disconnect", () => void stop());
send({ type: "ready", port: listening.port });
