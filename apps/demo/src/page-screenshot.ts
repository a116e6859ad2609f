// A picture of the approval page as alice sees it, when this machine has Chromium: the demo runs the
// same without one and then says nothing about it. Nothing is installed for the demo's sake.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findExecutable, openChromium, TOOLS } from "@roundtrip/test-services";

/** Outside the demo's temporary folder, which is removed when it stops: one file, replaced each run. */
export const SCREENSHOT_PATH = join(tmpdir(), "roundtrip-demo-approval-page.png");

/**
 * Opens `url` in a headless Chromium holding `cookie` (alice's sign-in to the page, for its path) and
 * saves a full-page screenshot. Resolves to its path; undefined when there is no Chromium here.
 */
export async function screenshotPage(
  url: URL,
  cookie: { name: string; value: string; path: string },
): Promise<string | undefined> {
  const executablePath = findExecutable(TOOLS.chromium.command, { absolute: TOOLS.chromium.alsoAt });
  if (executablePath === undefined) return undefined;
  const browser = await openChromium({ executablePath, viewport: { width: 1280, height: 800 } });
  try {
    await browser.context.addCookies([{ ...cookie, domain: url.hostname, httpOnly: true, sameSite: "Lax" }]);
    const page = await browser.context.newPage();
    const response = await page.goto(url.href);
    if (response?.status() !== 200) throw new Error(`the page answered HTTP ${response?.status()}`);
    await page.screenshot({ path: SCREENSHOT_PATH, fullPage: true });
    return SCREENSHOT_PATH;
  } finally {
    await browser.close();
  }
}
