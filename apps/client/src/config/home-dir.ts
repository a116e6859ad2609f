import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where roundtrip keeps its configuration, credentials and pending flows: ROUNDTRIP_HOME when set (tests
 * and side-by-side profiles use it), otherwise the user's configuration directory.
 */
export function roundtripHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ROUNDTRIP_HOME) return env.ROUNDTRIP_HOME;
  if (process.platform === "win32" && env.APPDATA) return join(env.APPDATA, "roundtrip");
  const configHome = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(configHome, "roundtrip");
}
