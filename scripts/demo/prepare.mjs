// `pnpm demo`'s first step: installs only what the demo runs (the demo package, apps/demo, with what it
// imports and runs: the CLI, the reference server, the development authorization server and the SDK;
// their dependencies; and the root's build tools), not the whole workspace with its test suites, deploy
// tooling and benchmarks; says what it installed; builds it. Plain JavaScript, since it runs before
// anything is installed or built.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const DEMO = "@roundtrip/demo";

const root = fileURLToPath(new URL("../..", import.meta.url));
const store = join(root, "node_modules", ".pnpm");
/** The workspace packages the demo depends on, from its manifest: `DEMO...` brings them along. */
const demoDependencies = Object.entries(
  JSON.parse(readFileSync(join(root, "apps", "demo", "package.json"), "utf8")).dependencies ?? {},
)
  .filter(([, range]) => String(range).startsWith("workspace:"))
  .map(([name]) => name);

/** Packages in the workspace's virtual store: one folder per installed package version. */
function installed() {
  if (!existsSync(store)) return 0;
  return readdirSync(store, { withFileTypes: true }).filter(
    (entry) => entry.isDirectory() && entry.name !== "node_modules",
  ).length;
}

const before = installed();
// The root package ("roundtrip") brings turbo and TypeScript, which the build step runs.
const filters = ["roundtrip", `${DEMO}...`].flatMap((f) => ["--filter", f]);
/** Runs pnpm with `args`; on failure, says what to check and exits with its status. */
function pnpm(args, advice) {
  const { status, error } = spawnSync("pnpm", args, { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  if (status === 0) return;
  process.stderr.write(
    `demo: pnpm ${args[0]} ${error ? `could not start (${error.message})` : "failed (see above)"}. ${advice}\n`,
  );
  process.exit(status ?? 1);
}

pnpm(
  ["install", "--frozen-lockfile", "--reporter=silent", ...filters],
  "The demo needs pnpm 11.29.0 (npm install -g pnpm@11.29.0) and access to the npm registry.",
);
const after = installed();
const added = after - before;
process.stdout.write(
  `Installed what the demo runs: ${DEMO} with ${demoDependencies.join(", ")} and their dependencies ` +
    `(${after} packages in node_modules/.pnpm${added > 0 ? `, ${added} new` : ", all already there"}). ` +
    "The test suites' packages come with a full `pnpm install`.\n",
);

pnpm(
  [
    "exec",
    "turbo",
    "run",
    "build",
    // The demo's build depends on the builds of the packages it imports (turbo's ^build).
    `--filter=${DEMO}`,
    "--output-logs=errors-only",
  ],
  "Fix the build error above, then run pnpm demo again.",
);
