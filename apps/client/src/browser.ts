import { spawn } from "node:child_process";
import { CliError, ExitCode } from "./exit-codes.js";

/**
 * Opens a web page in the person's browser, only ever after they agreed to. BROWSER (the convention
 * many tools share) names a program to run with the URL as its one argument; without it the platform's
 * default browser is used. Only http and https pages are opened: a server cannot make the client run a
 * file or a script URL.
 */
export async function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new CliError(
      ExitCode.failure,
      `refusing to open ${parsed.protocol} URLs in a browser; only http and https pages are opened`,
    );
  }
  if (env.BROWSER) {
    const child = spawn(env.BROWSER, [parsed.href], { stdio: "ignore", detached: true, shell: false });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) =>
        reject(
          new CliError(
            ExitCode.failure,
            `could not run BROWSER (${env.BROWSER}): ${error.message}; open the URL yourself`,
          ),
        ),
      );
    });
    child.unref();
    return;
  }
  const { default: open } = await import("open");
  await open(parsed.href);
}

/** The URL with its host emphasised, so the person sees where it really leads. */
export function highlightHost(url: string, strong: (text: string) => string): string {
  const parsed = new URL(url);
  const head = `${parsed.protocol}//`;
  const auth = parsed.username ? `${parsed.username}${parsed.password ? ":…" : ""}@` : "";
  return `${head}${auth}${strong(parsed.host)}${parsed.pathname}${parsed.search}${parsed.hash}`;
}
