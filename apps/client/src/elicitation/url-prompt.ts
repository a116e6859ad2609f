import type { ElicitRequestUrlParams, ElicitResult } from "@roundtrip/sdk/protocol";
import { openInBrowser } from "../browser.js";
import { askSelect } from "../terminal/prompts.js";
import { safeBlock, UNDER_LABEL } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";
import { type Asker, askerLabel } from "./asker.js";
import { urlLines } from "./url-lines.js";

/**
 * A URL-mode elicitation: who asks and why, then the whole URL and its host, and the browser opened
 * only after the person agrees. Accepting tells the server the person agreed to go there, nothing more;
 * the server learns the outcome of the page itself.
 */
export async function askUrl(
  params: ElicitRequestUrlParams,
  asker: Asker,
  terminal: Terminal,
  options: { browser: boolean },
): Promise<ElicitResult> {
  const url = new URL(params.url);
  terminal.notice("");
  terminal.notice(`${terminal.strong(askerLabel(asker))} asks you to open a web page:`);
  terminal.notice(`${UNDER_LABEL}${safeBlock(params.message, UNDER_LABEL)}`);
  for (const line of urlLines(url, terminal)) terminal.notice(line);
  const choice = await askSelect(terminal, {
    message: "Go to this page?",
    choices: [
      ...(options.browser ? [{ name: "Open it in my browser", value: "open" as const }] : []),
      { name: "I will open it myself (copy the URL above)", value: "manual" as const },
      { name: "Decline", value: "decline" as const },
      { name: "Cancel", value: "cancel" as const },
    ],
  });
  if (choice === "decline" || choice === "cancel") return { action: choice };
  if (choice === "open") await openInBrowser(url.href, process.env, (line) => terminal.notice(line));
  return { action: "accept" };
}
