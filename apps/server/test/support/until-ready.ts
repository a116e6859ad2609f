import type { RunningServer } from "./running-server.js";

/** Readiness turns back once the client has reconnected; the reconnect backs off to 2 s at most. */
export async function untilReady(server: RunningServer): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const body = (await (await fetch(`${server.origin}/readyz`)).json()) as { status: string };
    if (body.status === "ready") return;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(body)} after Redis came back`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
