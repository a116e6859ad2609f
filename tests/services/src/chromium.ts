import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, type BrowserContextOptions, chromium } from "playwright-core";
import { ensureTool } from "./ensure-tool.js";

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

export interface ChromiumOptions extends BrowserContextOptions {
  /** The browser to run; by default Debian's, installed if missing (see ensureTool). */
  executablePath?: string;
}

/** A headless Chromium with a fresh profile of its own, removed when it closes. */
export async function openChromium(options: ChromiumOptions = {}): Promise<ChromiumSession> {
  const { executablePath = await ensureTool("chromium"), ...contextOptions } = options;
  const profile = await mkdtemp(join(tmpdir(), "roundtrip-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ARGS,
    ...contextOptions,
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
