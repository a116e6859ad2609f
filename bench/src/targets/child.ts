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
process.on("message", (message: unknown) => {
  if (!isTagged<ServerCommand>(message)) return;
  if (message.type === "stop") void stop();
  if (message.type === "memory") send(memory());
});
process.once("disconnect", () => void stop());
send({ type: "ready", port: listening.port });
