/**
 * Setup of the unit tier: its files share one process and must stay in it. A unit test that starts a
 * child process (a server, redis-server, a CLI) fails, pointing at the package's `test/` folder,
 * where such tests run isolated and with time for it. The failure is raised by the spawn and again
 * after the test, in case the code under test caught the first one.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { afterEach } from "vitest";

const GUARDED = Symbol.for("roundtrip.unit.inProcess");
const attempts: string[] = [];

function refuse(what: unknown): never {
  const message =
    `a unit test started a child process (${String(what)}): unit tests run in-process; ` +
    "move the file to the package's test/ folder (CONTRIBUTING.md, Tests)";
  attempts.push(message);
  throw new Error(message);
}

// Files of the tier run one after another in one worker, which evaluates this once per file.
if (!(GUARDED in globalThis)) {
  Object.defineProperty(globalThis, GUARDED, { value: true });
  // spawn, exec, execFile and fork all start their process through this method.
  childProcess.ChildProcess.prototype.spawn = function spawn(options: { file?: string }) {
    refuse(options?.file);
  };
  childProcess.spawnSync = (command: string) => refuse(command);
  childProcess.execSync = (command: string) => refuse(command);
  childProcess.execFileSync = (file: string) => refuse(file);
  syncBuiltinESMExports();
}

afterEach(() => {
  const seen = attempts.splice(0);
  if (seen.length > 0) throw new Error(seen[0]);
});
