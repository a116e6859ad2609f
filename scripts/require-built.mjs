// A published package's prepack: refuses to pack without dist/, so a tarball never ships without the
// JavaScript its manifest points at (pnpm pack does not build). Run from the package's folder, as pnpm
// runs lifecycle scripts.
import { existsSync, readFileSync } from "node:fs";

const { name, exports } = JSON.parse(readFileSync("package.json", "utf8"));
const missing = Object.values(exports)
  .map((entry) => entry.default)
  .filter((file) => !existsSync(file));
if (missing.length > 0) {
  console.error(
    `${name}: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not built, so the tarball would not hold what its manifest exports; run \`pnpm pack:release\` at the repository's root (it builds, then packs both packages), or \`pnpm build\` first`,
  );
  process.exit(1);
}
