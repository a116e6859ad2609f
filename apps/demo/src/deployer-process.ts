// The downstream deployer API of the reference server's deploy tool, in a process of its own as it
// would run beside a real server: it accepts only tokens of the demo's authorization server whose
// audience is its own name, which the reference server gets by exchanging its caller's token.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";

/** The deployer's name at the authorization server: the audience of the tokens it accepts. */
export const DEPLOYER_AUDIENCE = "https://deployer.roundtrip.demo";

export interface DeployerProcess {
  url: string;
  close(): Promise<void>;
}

/** `dist/deployer/main.js` of the reference server's package, beside its entry point. */
function deployerMain(): string {
  const entry = createRequire(import.meta.url).resolve("@roundtrip/server");
  return join(dirname(entry), "deployer", "main.js");
}

export async function startDeployerProcess(issuer: string): Promise<DeployerProcess> {
  const child: ChildProcess = spawn(process.execPath, [deployerMain()], {
    env: { ...process.env, OAUTH_ISSUER: issuer, DEPLOYER_AUDIENCE, DEPLOYER_PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the deployer process exited with code ${String(code)} before it listened`);
  });
  const lines = createInterface({ input: child.stdout! });
  const first = once(lines, "line").then(([line]) => JSON.parse(String(line)) as { deployer: string });
  const { deployer } = await Promise.race([first, exited]);
  exited.catch(() => {});
  return {
    url: deployer,
    async close() {
      if (child.exitCode !== null) return;
      const gone = once(child, "exit");
      child.kill("SIGTERM");
      await gone;
    },
  };
}
