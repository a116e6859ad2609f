/**
 * A target server process: starts one server kind on loopback, reports its port over IPC, and stops
 * when told to (exiting normally so `--cpu-prof` can write its profile) or when the parent goes away.
 */
import { isTagged, type ServerCommand, type ServerMessage } from "../proc/messages.js";
import { isServerKind, startServer } from "./catalog.js";
import { RuntimeWindow } from "./runtime-window.js";

function send(message: ServerMessage): void {
  process.send?.(message);
}

const kind = process.argv[2] ?? "";
if (!isServerKind(kind)) {
  send({ type: "failed", message: `unknown server kind "${kind}"` });
  process.exit(2);
}

const runtime = new RuntimeWindow();
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
/**
 * The harness's measured window: the event loop and GC watch starts over when it opens and is read
 * when it closes, and so are the command counts of this server's redis-server, when it has one.
 */
async function openWindow(): Promise<ServerMessage> {
  runtime.reset();
  const redis = listening.redisCommands;
  try {
    await redis?.reset();
    return { type: "window-open", counting: redis !== undefined };
  } catch (error) {
    return { type: "window-open", counting: false, error: failure(error) };
  }
}

async function closeWindow(): Promise<ServerMessage> {
  const stats = runtime.read();
  const redis = listening.redisCommands;
  try {
    return redis
      ? { type: "window-close", runtime: stats, counts: await redis.read() }
      : { type: "window-close", runtime: stats };
  } catch (error) {
    return { type: "window-close", runtime: stats, error: failure(error) };
  }
}
process.on("message", (message: unknown) => {
  if (!isTagged<ServerCommand>(message)) return;
  if (message.type === "stop") void stop();
  if (message.type === "memory") send(memory());
  if (message.type === "window-open") void openWindow().then(send);
  if (message.type === "window-close") void closeWindow().then(send);
});
process.once("disconnect", () => void stop());
send({ type: "ready", port: listening.port });
