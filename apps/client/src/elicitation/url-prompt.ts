import { select } from "@inquirer/prompts";
import type { ElicitRequestUrlParams, ElicitResult } from "@roundtrip/sdk";
import { highlightHost, openInBrowser } from "../browser.js";
import { promptContext } from "../prompt-context.js";
import type { Terminal } from "../terminal.js";
import { type Asker, askerLabel } from "./asker.js";

/**
 * A URL-mode elicitation: the whole URL with its domain highlighted, and the browser opened only after
 * the person agrees. Accepting tells the server the person agreed to go there, nothing more; the server
 * learns the outcome of the page itself.
 */
export async function askUrl(
  params: ElicitRequestUrlParams,
  asker: Asker,
  terminal: Terminal,
  options: { browser: boolean },
): Promise<ElicitResult> {
  const url = new URL(params.url);
  terminal.notice("");
  terminal.notice(`${terminal.strong(askerLabel(asker))} asks you to open a web page: ${params.message}`);
  terminal.notice(`  ${highlightHost(url.href, terminal.strong)}`);
  terminal.notice(`  It leads to ${terminal.strong(url.hostname)}. Open it only if you trust that site.`);
  const choice = await select(
    {
      message: "Go to this page?",
      choices: [
        ...(options.browser ? [{ name: "Open it in my browser", value: "open" as const }] : []),
        { name: "I will open it myself (copy the URL above)", value: "manual" as const },
        { name: "Decline", value: "decline" as const },
        { name: "Cancel", value: "cancel" as const },
      ],
    },
    promptContext(terminal),
  );
  if (choice === "decline" || choice === "cancel") return { action: choice };
  if (choice === "open") await openInBrowser(url.href);
  return { action: "accept" };
}
