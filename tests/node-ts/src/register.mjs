// Node runs TypeScript by stripping its types, but keeps import specifiers as written: the sources
// import their siblings as `./x.js` (what tsc emits), so a `.ts` module's relative `.js` import is
// sent to the `.ts` file beside it when there is one. Synchronous and in-thread (`registerHooks`), so
// a child pays for nothing but the modules it loads.
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
      const url = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
      if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
