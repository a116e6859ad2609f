import { fileURLToPath } from "node:url";

const REGISTER = fileURLToPath(new URL("./register.mjs", import.meta.url));

/**
 * The arguments that make `node` run the TypeScript module `main` from source: Node strips the
 * types itself and the register module resolves its `./x.js` imports to `./x.ts`.
 */
export function typescriptArgs(main: string): string[] {
  return ["--import", REGISTER, main];
}
