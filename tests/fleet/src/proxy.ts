import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { ensureTool } from "@roundtrip/test-services";
import { killOnExit } from "./children.js";

/** nginx starts in milliseconds; a busy CI machine gets plenty of slack. */
const READY_WITHIN_MS = 60_000;

/** Response header naming every upstream nginx tried for a request, comma-separated, last one answered. */
export const UPSTREAM_HEADER = "x-upstream";

export interface ProxyOptions {
  /** The port nginx listens on (loopback), fixed up front because tokens name the proxy's URL. */
  port: number;
  /** The instances' loopback ports, in upstream order. */
  upstreams: readonly number[];
}

export interface NginxProxy {
  readonly origin: string;
  /** What nginx wrote to stderr: its error log, where failed upstream attempts are recorded. */
  errors(): string;
  stop(): Promise<void>;
}

/**
 * The whole configuration. Every path nginx writes is inside `dir`, so it runs unprivileged, beside
 * any system nginx, and leaves nothing behind.
 */
export function nginxConfig(dir: string, options: ProxyOptions): string {
  const servers = options.upstreams
    // max_fails=0: nginx never benches an instance. A refused connect on loopback costs microseconds
    // and is passed on to the next instance, and a restarted instance gets its share of rounds as
    // soon as it answers, instead of after a fail_timeout.
    .map((port) => `    server 127.0.0.1:${port} max_fails=0;`)
    .join("\n");
  return `daemon off;
# One process: stopping the child stops nginx entirely, with no orphaned worker to clean up.
master_process off;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream fleet {
${servers}
    # Keep-alive connections to the instances, as a production proxy keeps them; closed from this
    # side well before the servers' own keep-alive timeout, so an idle close never races a request.
    keepalive 32;
    keepalive_timeout 30s;
  }
  server {
    listen 127.0.0.1:${options.port};
    location / {
      proxy_pass http://fleet;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_buffering off;
      proxy_connect_timeout 2s;
      proxy_read_timeout 30s;
      # Which rule passes a POST to the next instance, and why each is safe, is in the README
      # ("Retries at the proxy"): only when the instance it went to did not act on it.
      proxy_next_upstream error timeout http_503 non_idempotent;
      proxy_next_upstream_tries 3;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

/** Starts nginx as a foreground child process with a generated configuration in a temporary folder. */
export async function startNginx(options: ProxyOptions): Promise<NginxProxy> {
  const binary = await ensureTool("nginx");
  const dir = await mkdtemp(join(tmpdir(), "roundtrip-fleet-nginx-"));
  const conf = join(dir, "nginx.conf");
  await writeFile(conf, nginxConfig(dir, options));
  // -e: the error log before the configuration is read, which would otherwise be a system path.
  const child = spawn(binary, ["-p", dir, "-e", "stderr", "-c", conf], { stdio: ["ignore", "pipe", "pipe"] });
  killOnExit(child);
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = exitOf(child);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const forced = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(forced);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await untilListening(options.port, exited, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin: `http://127.0.0.1:${options.port}`, errors: () => stderr, stop };
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: null, signal: null }));
  });
}

/** Polls the listening port: nginx says nothing when it is up. */
async function untilListening(port: number, exited: Promise<unknown>, output: () => string): Promise<void> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + READY_WITHIN_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`nginx exited before listening:\n${output()}`);
    if (await accepts(port)) return;
    await delay(20);
  }
  throw new Error(`nginx did not listen on ${port} within ${READY_WITHIN_MS} ms:\n${output()}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
