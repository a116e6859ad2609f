import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureTool } from "@roundtrip/test-services";
import { type BrowserContext, type BrowserContextOptions, chromium } from "playwright-core";

/**
 * Without the background-networking flags Chromium keeps calling home (updates, sync, field trials),
 * which floods a closed network and can stall a run; QUIC and the GPU are of no use to a test either.
 */
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface ChromiumSession {
  readonly context: BrowserContext;
  /** Closes the browser, then removes its profile. */
  close(): Promise<void>;
}

/** A headless Chromium (Debian's, installed if missing) with a fresh profile of its own. */
export async function openChromium(options: BrowserContextOptions = {}): Promise<ChromiumSession> {
  const executablePath = await ensureTool("chromium");
  const profile = await mkdtemp(join(tmpdir(), "roundtrip-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ARGS,
    ...options,
  });
  return {
    context,
    async close() {
      await context.close();
      // The browser's last writes may still be landing as it exits: retried, not raced.
      await rm(profile, { recursive: true, force: true, maxRetries: 10 });
    },
  };
}
