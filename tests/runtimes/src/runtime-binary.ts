import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type RuntimeName = "bun" | "deno" | "workerd";

/**
 * The npm packages that carry each runtime's binary, per platform: optional dependencies of this
 * package, so `pnpm install` fetches the one for this machine from the npm registry, nothing else.
 */
const PACKAGES: Record<RuntimeName, Record<string, { pkg: string; bin: string }>> = {
  bun: {
    "linux-x64": { pkg: "@oven/bun-linux-x64", bin: "bin/bun" },
    "linux-arm64": { pkg: "@oven/bun-linux-aarch64", bin: "bin/bun" },
    "darwin-x64": { pkg: "@oven/bun-darwin-x64", bin: "bin/bun" },
    "darwin-arm64": { pkg: "@oven/bun-darwin-aarch64", bin: "bin/bun" },
  },
  deno: {
    "linux-x64": { pkg: "@deno/linux-x64-glibc", bin: "deno" },
    "linux-arm64": { pkg: "@deno/linux-arm64-glibc", bin: "deno" },
    "darwin-x64": { pkg: "@deno/darwin-x64", bin: "deno" },
    "darwin-arm64": { pkg: "@deno/darwin-arm64", bin: "deno" },
  },
  workerd: {
    "linux-x64": { pkg: "@cloudflare/workerd-linux-64", bin: "bin/workerd" },
    "linux-arm64": { pkg: "@cloudflare/workerd-linux-arm64", bin: "bin/workerd" },
    "darwin-x64": { pkg: "@cloudflare/workerd-darwin-64", bin: "bin/workerd" },
    "darwin-arm64": { pkg: "@cloudflare/workerd-darwin-arm64", bin: "bin/workerd" },
  },
};

const require = createRequire(import.meta.url);

/** The runtime's executable, or an error that says how to get it. */
export function runtimeBinary(name: RuntimeName): string {
  const platform = `${process.platform}-${process.arch}`;
  const entry = PACKAGES[name][platform];
  if (entry === undefined) {
    throw new Error(
      `no ${name} binary package is listed for ${platform}; add the runtime's npm package for this platform to tests/runtimes optionalDependencies`,
    );
  }
  let root: string;
  try {
    root = dirname(require.resolve(`${entry.pkg}/package.json`));
  } catch {
    throw new Error(
      `${entry.pkg} is not installed: run \`pnpm install\` at the repository root (it is an optional dependency of tests/runtimes, fetched for ${platform} only)`,
    );
  }
  const binary = join(root, entry.bin);
  if (!existsSync(binary))
    throw new Error(`${entry.pkg} holds no ${entry.bin}: reinstall it with \`pnpm install --force\``);
  return binary;
}
