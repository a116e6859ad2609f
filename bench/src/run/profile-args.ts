import { mkdirSync } from "node:fs";
import { join } from "node:path";

/** Node flags that make a server write its V8 CPU profile as `<name>.cpuprofile`; none unless profiling. */
export function profileArgs(profileDir: string | undefined, name: string): string[] {
  if (!profileDir) return [];
  mkdirSync(profileDir, { recursive: true });
  return ["--cpu-prof", `--cpu-prof-dir=${join(profileDir)}`, `--cpu-prof-name=${name}.cpuprofile`];
}
