import { type ChildProcess, spawn } from "node:child_process";
import { CliError, ExitCode } from "./exit-codes.js";

/** What the person is told when no browser could be started: the URL is on the screen already. */
export const NO_BROWSER = "couldn't open a browser; copy the URL above";

/**
 * Opens a web page in the person's browser, only ever after they agreed to. BROWSER (the convention
 * many tools share) names a program to run with the URL as its one argument; without it the platform's
 * default browser is used. Only http and https pages are opened: a server cannot make the client run a
 * file or a script URL. A browser that cannot be started is not an error of the flow (the person can
 * copy the URL), so it is reported through `report` and the promise resolves to false.
 */
export async function openInBrowser(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  report: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<boolean> {
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new CliError(
      ExitCode.failure,
      `refusing to open ${parsed.protocol} URLs in a browser; only http and https pages are opened`,
    );
  }
  try {
    if (env.BROWSER) {
      const child = spawn(env.BROWSER, [parsed.href], { stdio: "ignore", detached: true, shell: false });
      await started(child);
      child.unref();
    } else {
      // `open` itself waits until the launcher has started, and rejects when it cannot.
      const { default: open } = await import("open");
      await open(parsed.href);
    }
    return true;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    report(`${NO_BROWSER} (${env.BROWSER ? `BROWSER=${env.BROWSER}: ` : ""}${why})`);
    return false;
  }
}

function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
}

/** The URL with its host emphasised, so the person sees where it really leads. */
export function highlightHost(url: string, strong: (text: string) => string): string {
  const parsed = new URL(url);
  const head = `${parsed.protocol}//`;
  const auth = parsed.username ? `${parsed.username}${parsed.password ? ":…" : ""}@` : "";
  return `${head}${auth}${strong(parsed.host)}${parsed.pathname}${parsed.search}${parsed.hash}`;
}
