import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "@roundtrip/server";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { interpolate, interpolatedNames } from "../src/compose-interpolation.js";
import { loadDockerfile } from "../src/dockerfile.js";
import { parseRedisUrl, pingAs, startRedis } from "../src/redis.js";
import { expectKeepsState, measureDurability } from "../src/redis-durability.js";
import { repoPath, run, SAMPLE_WRAPPED_KEY, undocumentedVariables } from "../src/repo.js";

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string };
  command?: string[];
  entrypoint?: string[] | string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  expose?: string[];
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  read_only?: boolean;
  cap_drop?: string[];
  tmpfs?: string[];
  user?: string;
  privileged?: boolean;
  security_opt?: string[];
}

interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const COMPOSE = repoPath("infra", "compose.yaml");
const dclint = join(import.meta.dirname, "..", "node_modules", ".bin", "dclint");

function lint(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(dclint, ["--max-warnings", "0", "--no-color", file], (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === "number" ? error.code : 1) : 0,
        output: stdout + stderr,
      }),
    );
  });
}

let compose: Compose;
let replicas: [Service, Service];

beforeAll(async () => {
  compose = parse(await readFile(COMPOSE, "utf8"), { merge: true }) as Compose;
  replicas = [compose.services["server-1"]!, compose.services["server-2"]!];
});

/** `volume:/path[:ro]` entries as { source, target, readOnly }. */
function mounts(service: Service) {
  return (service.volumes ?? []).map((entry) => {
    const [source, target, mode] = entry.split(":");
    return { source: source!, target: target!, readOnly: mode === "ro" };
  });
}

describe("infra/compose.yaml", () => {
  it("passes dclint (compose-spec schema and rules) with no error or warning", async () => {
    const { code, output } = await lint(COMPOSE);
    expect(output.trim()).toBe("");
    expect(code).toBe(0);
  });

  it("is rejected by the same lint when it breaks the compose schema", async () => {
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-compose-"));
    try {
      const broken = (await readFile(COMPOSE, "utf8")).replace("read_only: true", "read_only: [yes]");
      await writeFile(join(dir, "compose.yaml"), broken);
      await cp(repoPath("infra", "compose"), join(dir, "compose"), { recursive: true });
      const { code, output } = await lint(join(dir, "compose.yaml"));
      expect(code).not.toBe(0);
      expect(output).toMatch(/invalid-schema|Validation error/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("runs two identical server replicas: same image, SERVER_NAME, PUBLIC_URL, KMS key and wrapped key", () => {
    expect(replicas[0]).toEqual(replicas[1]);
    const [env] = [replicas[0].environment!];
    expect(env.SERVER_NAME).toBe("roundtrip");
    expect(env.KMS_SERVICE_NAME).toBe(env.SERVER_NAME);
    expect(env.KMS_KEY_ID).toBe("alias/roundtrip");
    expect(env.HOST).toBe("0.0.0.0");
    expect(env).not.toHaveProperty("KMS_WRAPPED_KEYS");
    expect(replicas[0].build?.target).toBe("server");
  });

  it("gives each replica the one wrapped key the keygen service minted, and keeps node as PID 1", () => {
    const keygen = compose.services.keygen!;
    expect((keygen.entrypoint as string[]).slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    const script = (keygen.entrypoint as string[])[2]!;
    const written = script.match(/> (\S+)\.new/)?.[1];
    expect(written).toBeDefined();
    expect(script).toContain(`mv ${written}.new ${written}`);
    // Minted once: a later run keeps the key the running replicas already use.
    expect(script).toMatch(new RegExp(`^test -s ${written} \\|\\|`));
    const keygenMount = mounts(keygen).find((m) => written!.startsWith(`${m.target}/`));
    expect(keygenMount).toBeDefined();
    expect(compose.volumes).toHaveProperty(keygenMount!.source);

    for (const replica of replicas) {
      const mount = mounts(replica).find((m) => m.source === keygenMount!.source);
      expect(mount).toEqual({ source: keygenMount!.source, target: keygenMount!.target, readOnly: true });
      const entrypoint = replica.entrypoint as string[];
      expect(entrypoint.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
      // `$$` is compose's escape for a literal `$`: the shell, not compose, reads the file.
      expect(entrypoint[2]).toBe(`KMS_WRAPPED_KEYS=$$(cat ${written}) exec node dist/main.js`);
      expect(replica.depends_on?.keygen).toEqual({ condition: "service_completed_successfully" });
    }
  });

  it("mints that key under the replicas' KMS key and service name, at the emulator they use", () => {
    const keygen = compose.services.keygen!;
    const script = [keygen.entrypoint].flat().join(" ");
    const env = replicas[0].environment!;
    expect(script).toContain(
      `roundtrip-kms-keygen --key-id ${env.KMS_KEY_ID} --service ${env.KMS_SERVICE_NAME}`,
    );
    expect(keygen.environment?.AWS_ENDPOINT_URL_KMS).toBe(env.KMS_ENDPOINT);
    expect(keygen.environment?.AWS_REGION).toBe(env.AWS_REGION);
    expect(keygen.build).toEqual(replicas[0].build);
    expect(keygen.depends_on?.kms).toEqual({ condition: "service_healthy" });
    expect(new URL(env.KMS_ENDPOINT!).hostname).toBe("kms");
  });

  it("creates that KMS key in LocalStack at start-up, and is healthy only once the alias exists", async () => {
    const kms = compose.services.kms!;
    expect(kms.image).toMatch(/^localstack\/localstack:\d+\.\d+\.\d+$/);
    const [init] = mounts(kms);
    expect(init!.target).toMatch(/^\/etc\/localstack\/init\/ready\.d\/.+\.sh$/);
    const script = repoPath("infra", init!.source);
    expect(statSync(script).mode & 0o111, "init script is executable").not.toBe(0);
    const text = await readFile(script, "utf8");
    const alias = replicas[0].environment!.KMS_KEY_ID;
    expect(text).toMatch(/awslocal kms create-key/);
    expect(text).toContain(`awslocal kms create-alias --alias-name ${alias}`);
    expect(kms.healthcheck?.test).toEqual(["CMD", "awslocal", "kms", "describe-key", "--key-id", alias]);
  });

  it("runs the development authorization server as the issuer the replicas trust, for their PUBLIC_URL", () => {
    const auth = compose.services.auth!;
    const env = replicas[0].environment!;
    expect(auth.build?.target).toBe("local-auth");
    const args = auth.command!;
    const arg = (name: string) => args[args.indexOf(name) + 1];
    expect(arg("--resource")).toBe(env.PUBLIC_URL);
    // The issuer is http://<host>:<port> exactly as passed, so it must be what the replicas expect.
    expect(`http://${arg("--host")}:${arg("--port")}`).toBe(env.OAUTH_ISSUER);
    expect(replicas[0].depends_on?.auth).toEqual({ condition: "service_healthy" });
    expect(auth.healthcheck?.test.join(" ")).toContain(
      `${env.OAUTH_ISSUER}/.well-known/openid-configuration`,
    );
  });

  it("gives the replicas an environment the server's own configuration loader accepts", async () => {
    // As compose hands it over: interpolated from an empty shell environment, so every default applies.
    const env: Record<string, string> = { KMS_WRAPPED_KEYS: SAMPLE_WRAPPED_KEY };
    for (const [name, value] of Object.entries(replicas[0].environment!)) env[name] = interpolate(value, {});
    const config = loadConfig(env);
    expect(config.serverName).toBe("roundtrip");
    expect(config.keys.kind).toBe("kms");
    expect(await undocumentedVariables(Object.keys(env))).toEqual([]);
  });

  it("balances round robin over exactly the two replicas, on the port PUBLIC_URL names", async () => {
    const proxy = compose.services.proxy!;
    const [conf] = mounts(proxy);
    expect(conf!.target).toBe("/etc/nginx/conf.d/default.conf");
    const nginx = await readFile(repoPath("infra", conf!.source), "utf8");
    const upstream = nginx.match(/upstream\s+(\S+)\s*\{([^}]*)\}/);
    expect(upstream).not.toBeNull();
    const servers = [...upstream![2]!.matchAll(/^\s*server\s+([^\s;]+)/gm)].map((m) => m[1]);
    const port = replicas[0].environment!.PORT;
    expect(servers).toEqual([`server-1:${port}`, `server-2:${port}`]);
    // Any of these would pin a client to one replica and hide cross-replica failures.
    expect(upstream![2]).not.toMatch(/\b(ip_hash|hash|least_conn|random|sticky)\b/);
    expect(nginx).toContain(`proxy_pass http://${upstream![1]};`);
    const listen = nginx.match(/listen\s+(\d+);/)?.[1];
    const publicUrl = new URL(replicas[0].environment!.PUBLIC_URL!);
    expect(proxy.ports).toEqual([`${publicUrl.hostname}:${publicUrl.port}:${listen}`]);
    expect(proxy.depends_on).toEqual({
      "server-1": { condition: "service_healthy" },
      "server-2": { condition: "service_healthy" },
    });
  });

  it("serves /metrics on each replica's METRICS_PORT, which the metrics profile's Prometheus scrapes", async () => {
    const port = replicas[0].environment!.METRICS_PORT!;
    for (const replica of replicas) expect(replica.expose).toEqual([port]);
    const prometheus = compose.services.prometheus!;
    // Off by default: `docker compose up` starts it only with --profile metrics.
    expect(prometheus.profiles).toEqual(["metrics"]);
    const [conf] = mounts(prometheus);
    expect(conf!.target).toBe("/etc/prometheus/prometheus.yml");
    const scrape = parse(await readFile(repoPath("infra", conf!.source), "utf8")) as {
      scrape_configs: { metrics_path: string; static_configs: { targets: string[] }[] }[];
    };
    expect(scrape.scrape_configs).toHaveLength(1);
    expect(scrape.scrape_configs[0]!.metrics_path).toBe("/metrics");
    expect(scrape.scrape_configs[0]!.static_configs.flatMap((c) => c.targets)).toEqual([
      `server-1:${port}`,
      `server-2:${port}`,
    ]);
    const env: Record<string, string> = { KMS_WRAPPED_KEYS: SAMPLE_WRAPPED_KEY };
    for (const [name, value] of Object.entries(replicas[0].environment!)) env[name] = interpolate(value, {});
    expect(loadConfig(env).metrics).toEqual({ host: "0.0.0.0", port: Number(port) });
  });

  it("health-checks every long-running service; replicas count as healthy only once /readyz is 200", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === "keygen") continue;
      expect(["CMD", "CMD-SHELL"], name).toContain(service.healthcheck?.test[0]);
    }
    expect(replicas[0].healthcheck?.test.join(" ")).toContain(
      `127.0.0.1:${replicas[0].environment!.PORT}/readyz`,
    );
  });

  it("runs the replicas locked down: read-only root, /tmp as tmpfs, no capabilities, never privileged", () => {
    for (const replica of replicas) {
      expect(replica.read_only).toBe(true);
      expect(replica.tmpfs).toEqual(["/tmp"]);
      expect(replica.cap_drop).toEqual(["ALL"]);
      expect(replica.user).toBeUndefined();
    }
    for (const [name, service] of Object.entries(compose.services))
      expect(service.privileged, name).toBeUndefined();
  });

  it("builds from targets the Dockerfile defines, with the repository root as context", async () => {
    const { stages } = await loadDockerfile();
    for (const [name, service] of Object.entries(compose.services)) {
      if (!service.build) continue;
      expect(resolve(repoPath("infra"), service.build.context), name).toBe(resolve(repoPath()));
      expect(existsSync(repoPath(service.build.dockerfile)), name).toBe(true);
      expect(
        stages.map((stage) => stage.name),
        name,
      ).toContain(service.build.target);
    }
  });

  describe("the shared Redis", () => {
    const redis = () => compose.services.redis!;
    /** The compose file as `docker compose` would run it with `shell` as the caller's environment. */
    const resolved = (shell: Record<string, string>) => ({
      url: interpolate(replicas[0].environment!.REDIS_URL!, shell),
      command: redis().command!.map((arg) => interpolate(arg, shell)),
      cliAuth: interpolate(redis().environment!.REDISCLI_AUTH!, shell),
    });
    const requirepass = (command: string[]) => command[command.indexOf("--requirepass") + 1];

    it("is what both replicas' REDIS_URL names, by service name and port, and they start only once it is healthy", () => {
      for (const replica of replicas) {
        const target = parseRedisUrl(interpolate(replica.environment!.REDIS_URL!, {}));
        expect(target.host).toBe("redis");
        expect(compose.services).toHaveProperty(target.host);
        expect(target.port).toBe(6379);
        expect(target.database).toBe(0);
        expect(replica.depends_on?.redis).toEqual({ condition: "service_healthy" });
      }
    });

    it("requires the password the replicas send, one variable with a development default driving both", () => {
      const defaults = resolved({});
      expect(parseRedisUrl(defaults.url).password).toBe(requirepass(defaults.command));
      expect(defaults.cliAuth).toBe(requirepass(defaults.command));
      expect(requirepass(defaults.command)).toMatch(/^[A-Za-z0-9-]{12,}$/);
      const names = new Set(
        [
          replicas[0].environment!.REDIS_URL!,
          redis().environment!.REDISCLI_AUTH!,
          ...redis().command!,
        ].flatMap(interpolatedNames),
      );
      expect([...names]).toEqual(["ROUNDTRIP_REDIS_PASSWORD"]);
      const chosen = resolved({ ROUNDTRIP_REDIS_PASSWORD: "s3cretFromTheShell" });
      expect(parseRedisUrl(chosen.url).password).toBe("s3cretFromTheShell");
      expect(requirepass(chosen.command)).toBe("s3cretFromTheShell");
      expect(chosen.cliAuth).toBe("s3cretFromTheShell");
    });

    it("runs the official Debian redis 7 image, unpublished, locked down, its /data on a named volume", () => {
      const service = redis();
      expect(service.image).toMatch(/^redis:7(\.\d+){0,2}-bookworm$/);
      expect(service.ports).toBeUndefined();
      // The image's working directory, where the AOF lives: a volume that outlives the container.
      expect(service.volumes).toEqual(["redis-data:/data"]);
      expect(compose.volumes).toHaveProperty("redis-data");
      expect(service.tmpfs).toBeUndefined();
      const { command } = resolved({});
      expect(command[0]).toBe("redis-server");
      expect(command).not.toContain("--save");
      expect(service.read_only).toBe(true);
      expect(service.cap_drop).toEqual(["ALL"]);
      expect(service.security_opt).toEqual(["no-new-privileges:true"]);
      // Not root, so the image's entrypoint neither chowns nor switches users (no capabilities left).
      expect(service.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    });

    it("keeps every acknowledged write through a restart and a SIGKILL, and refuses writes when full, in a real redis-server", async () => {
      const shell = { ROUNDTRIP_REDIS_PASSWORD: "fromTheShell42" };
      const { command } = resolved(shell);
      expectKeepsState(await measureDurability(command.slice(1), shell.ROUNDTRIP_REDIS_PASSWORD));
    }, 120_000);

    it("accepts the replicas' REDIS_URL and passes its health check only with the right password, in a real redis-server", async () => {
      const shell = { ROUNDTRIP_REDIS_PASSWORD: "fromTheShell42" };
      const { url, command, cliAuth } = resolved(shell);
      const running = await startRedis(command.slice(1));
      try {
        const target = parseRedisUrl(url);
        expect(await pingAs(running, target)).toBe("PONG");
        expect(await pingAs(running, { ...target, password: "roundtrip-dev-only" })).not.toBe("PONG");
        expect(await pingAs(running, { ...target, password: undefined })).toMatch(/NOAUTH/);

        const [form, script] = redis().healthcheck!.test;
        expect(form).toBe("CMD-SHELL");
        // The container's Redis listens on 6379; this one on a free port, which a redis-cli earlier on
        // PATH adds. The check itself runs unchanged, in a shell, as the engine would run it.
        const bin = await mkdtemp(join(tmpdir(), "roundtrip-redis-cli-"));
        try {
          await writeFile(
            join(bin, "redis-cli"),
            `#!/bin/sh\nexec ${running.cli} -p ${running.port} "$@"\n`,
            { mode: 0o755 },
          );
          const check = (auth: string) =>
            run("/bin/sh", ["-c", script!], {
              env: { PATH: `${bin}:${process.env.PATH}`, REDISCLI_AUTH: auth },
            }).then(
              () => "healthy",
              () => "unhealthy",
            );
          expect(await check(cliAuth)).toBe("healthy");
          expect(await check("not-the-password")).toBe("unhealthy");
        } finally {
          await rm(bin, { recursive: true, force: true });
        }
      } finally {
        await running.stop();
      }
    });
  });
});
