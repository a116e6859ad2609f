import { promptContext } from "./prompt-context.js";
import type { Terminal } from "./terminal.js";

/**
 * The directories to share when a server asks for roots and no --root was given: none, unless a
 * person at the terminal agrees to share the working directory. Without a terminal, or with --yes
 * (which approves what the server asks, not what it may look at), nothing is shared.
 */
export async function consentedRoots(
  terminal: Terminal,
  options: { yes: boolean; cwd?: string },
): Promise<string[]> {
  const cwd = options.cwd ?? process.cwd();
  if (!terminal.interactive || options.yes) {
    terminal.notice("The server asks for your roots: none are shared (--root <dir> shares one).");
    return [];
  }
  // Loaded only when a person is asked: most runs have no terminal, and the prompts cost every start.
  const { confirm } = await import("@inquirer/prompts");
  const share = await confirm(
    { message: `The server asks for your roots. Share the working directory ${cwd}?`, default: false },
    promptContext(terminal),
  );
  return share ? [cwd] : [];
}
