import type * as OidcProviderModule from "oidc-provider";

const RUNTIME_WARNING =
  "oidc-provider WARNING: Unsupported runtime. Use Node.js v22.x LTS, or a later LTS release.";
/** The same line as oidc-provider colours it when stderr is a terminal. */
const RUNTIME_WARNING_TTY = `\u001b[31;1m${RUNTIME_WARNING}\u001b[0m`;

let loaded: Promise<typeof OidcProviderModule> | undefined;

/**
 * Imports oidc-provider once. Its only import-time output is a notice when the Node release is not an
 * LTS one, as Node 26 is until it enters LTS, though it works there; that one line is dropped by exact
 * match while every other console.warn passes through untouched, so no real warning is ever hidden.
 */
export function loadProvider(): Promise<typeof OidcProviderModule> {
  loaded ??= importQuietly();
  return loaded;
}

async function importQuietly(): Promise<typeof OidcProviderModule> {
  const original = console.warn;
  console.warn = (...args: unknown[]) => {
    if (args.length === 1 && (args[0] === RUNTIME_WARNING || args[0] === RUNTIME_WARNING_TTY)) return;
    original(...args);
  };
  try {
    return await import("oidc-provider");
  } finally {
    console.warn = original;
  }
}
