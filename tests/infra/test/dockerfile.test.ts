import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { dockerignore, execForm, flags, loadDockerfile, ofKind, type Stage } from "../src/dockerfile.js";
import { readRepoFile, repoPath } from "../src/repo.js";

let stages: Stage[];
let server: Stage;

beforeAll(async () => {
  ({ stages } = await loadDockerfile());
  server = stages.at(-1)!;
});

const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIAL|PRIVATE|API_?KEY|ACCESS_KEY|WRAPPED_KEYS)/i;

describe("infra/docker/Dockerfile", () => {
  it("is multi-stage, and its last stage (the default target) is the server", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(server.name).toBe("server");
    const names = stages.map((stage) => stage.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("bases every stage on one node bookworm-slim image pinned to an exact Node release", async () => {
    const stageNames = new Set(stages.map((stage) => stage.name));
    const external = stages.filter((stage) => !stageNames.has(stage.base));
    expect(external.length).toBeGreaterThan(0);
    expect(new Set(external.map((stage) => stage.base)).size).toBe(1);
    const { name, tag, digest } = external[0]!.baseImage;
    expect(name).toBe("node");
    expect(tag).toMatch(/^\d+\.\d+\.\d+-bookworm-slim$/);
    if (digest !== null) expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The major the workspace declares in engines.node, so the image runs what CI tests.
    const engines = (JSON.parse(await readRepoFile("package.json")) as { engines: { node: string } }).engines
      .node;
    expect(tag!.split(".")[0]).toBe(engines.match(/\d+/)![0]);
  });

  it("installs the pnpm release the workspace pins, and deploys only the server's production dependencies", async () => {
    const manager = (JSON.parse(await readRepoFile("package.json")) as { packageManager: string })
      .packageManager;
    const runs = stages.flatMap((stage) => ofKind(stage, "RUN")).map((r) => r.getArgumentsContent() ?? "");
    expect(
      runs.some((command) => command.includes(`npm install --global --no-fund --no-audit ${manager}`)),
    ).toBe(true);
    const deploys = runs.filter((command) => /--filter \S+ deploy /.test(command));
    expect(deploys.map((command) => command.match(/--filter (\S+) deploy/)![1]).sort()).toEqual([
      "@roundtrip/local-auth",
      "@roundtrip/server",
    ]);
    for (const command of deploys) {
      // From the lockfile (needs injected workspace packages), from the fetched store only; --legacy
      // would resolve every range afresh. image-contents.test.ts runs these against an empty store.
      expect(command).toMatch(/deploy --prod --offline --config\.inject-workspace-packages=true \/out/);
      expect(command).not.toContain("--legacy");
    }
    expect(runs.some((command) => command.includes("--frozen-lockfile"))).toBe(true);
  });

  it("copies the server stage's files only from the build stage that deployed them", () => {
    const copies = ofKind(server, "COPY");
    expect(copies).toHaveLength(1);
    const from = flags(copies[0]!).get("from");
    const source = stages.find((stage) => stage.name === from);
    expect(
      source?.instructions.some((i) => (i.getArgumentsContent() ?? "").includes("@roundtrip/server deploy")),
    ).toBe(true);
    expect(copies[0]!.getArguments().map((a) => a.getValue())).toEqual(["/out", "/app"]);
    // Root-owned code: the unprivileged user can read it but not change it.
    expect(flags(copies[0]!).get("chown")).toBe("root:root");
  });

  it("runs as a numeric non-root user in every stage that is an image people run", () => {
    // Stages that no other stage builds on or copies from are the images that get run.
    const copiedFrom = new Set(
      stages.flatMap((stage) => ofKind(stage, "COPY").map((copy) => flags(copy).get("from"))),
    );
    const runnable = stages.filter(
      (stage) => stages.every((other) => other.base !== stage.name) && !copiedFrom.has(stage.name),
    );
    expect(runnable.map((stage) => stage.name).sort()).toEqual(["local-auth", "server"]);
    for (const stage of runnable) {
      const users = ofKind(stage, "USER");
      expect(users.length, `${stage.name} sets USER`).toBeGreaterThan(0);
      const user = users.at(-1)!.getArgumentsContent()!;
      expect(user, `${stage.name} USER is numeric (runAsNonRoot can check it)`).toMatch(/^\d+(:\d+)?$/);
      expect(Number(user.split(":")[0]), `${stage.name} USER is not root`).toBeGreaterThan(0);
    }
  });

  it('starts node directly in exec form, CMD ["node", "dist/main.js"], so SIGTERM reaches the server', () => {
    expect(ofKind(server, "ENTRYPOINT")).toEqual([]);
    const cmds = ofKind(server, "CMD");
    expect(cmds).toHaveLength(1);
    expect(execForm(cmds[0]!)).toEqual(["node", "dist/main.js"]);
  });

  it("declares a HEALTHCHECK in exec form that calls /healthz with node", () => {
    const checks = ofKind(server, "HEALTHCHECK");
    expect(checks).toHaveLength(1);
    const command = execForm(checks[0]!);
    expect(command?.slice(0, 2)).toEqual(["node", "-e"]);
    expect(command?.[2]).toContain("/healthz");
    for (const flag of ["interval", "timeout", "retries"]) expect(flags(checks[0]!).has(flag)).toBe(true);
  });

  it("puts no secret in ENV or ARG, in any stage", () => {
    for (const stage of stages) {
      for (const instruction of [...ofKind(stage, "ENV"), ...ofKind(stage, "ARG")]) {
        const content = instruction.getArgumentsContent() ?? "";
        expect(content, `${stage.name}: ${instruction.getKeyword()} ${content}`).not.toMatch(SECRET_NAME);
      }
    }
    const env = ofKind(server, "ENV").map((e) => e.getArgumentsContent());
    expect(env.join(" ")).toMatch(/NODE_ENV=production/);
    expect(env.join(" ")).toMatch(/HOST=0\.0\.0\.0/);
  });

  it("copies from the build context only files that exist and that .dockerignore lets through", async () => {
    const ignored = dockerignore(await readRepoFile(".dockerignore"));
    const sources = stages
      .flatMap((stage) => ofKind(stage, "COPY"))
      .filter((copy) => !flags(copy).has("from"))
      .flatMap((copy) =>
        copy
          .getArguments()
          .slice(0, -1)
          .map((a) => a.getValue()),
      );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(repoPath(source)), `${source} exists`).toBe(true);
      if (source !== ".") expect(ignored(source), `${source} is not ignored`).toBe(false);
    }
    // What the build needs from `COPY . .` reaches it...
    for (const needed of [
      "packages/sdk/src/index.ts",
      "apps/server/src/main.ts",
      "apps/server/package.json",
      "infra/local/src/bin.ts",
      "tsconfig.base.json",
      "apps/server/.env.example",
    ]) {
      expect(existsSync(repoPath(needed)), needed).toBe(true);
      expect(ignored(needed), `${needed} reaches the build`).toBe(false);
    }
    // ...and host installs, build output and secrets do not.
    for (const excluded of [
      "node_modules",
      "apps/server/node_modules/fastify",
      "packages/sdk/dist/index.js",
      ".git/HEAD",
      "apps/server/.env",
      ".env",
      "infra/aws/cdk.out/manifest.json",
    ]) {
      expect(ignored(excluded), `${excluded} is ignored`).toBe(true);
    }
  });

  it("names a local-auth stage whose entry point is the bin infra/local/package.json declares", async () => {
    const localAuth = stages.find((stage) => stage.name === "local-auth");
    const entry = execForm(ofKind(localAuth!, "ENTRYPOINT")[0]!);
    const manifest = JSON.parse(await readRepoFile("infra/local/package.json")) as {
      bin: Record<string, string>;
    };
    expect(entry).toEqual(["node", manifest.bin["roundtrip-local-auth"]!.replace(/^\.\//, "")]);
    expect(existsSync(repoPath("infra/local/src/bin.ts"))).toBe(true);
  });
});

describe("the HEALTHCHECK command", () => {
  let stub: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (stub ? stub.close(() => resolve()) : resolve())));

  async function healthcheck(port: number): Promise<number> {
    const command = execForm(ofKind(server, "HEALTHCHECK")[0]!)!;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        command.slice(1),
        { env: { PORT: String(port) }, timeout: 10_000 },
        (error) => resolve(error ? (typeof error.code === "number" ? error.code : 1) : 0),
      );
    });
  }

  async function serve(status: number): Promise<number> {
    stub = createServer((req, res) => res.writeHead(req.url === "/healthz" ? status : 404).end());
    await new Promise<void>((resolve) => stub!.listen(0, "127.0.0.1", resolve));
    return (stub.address() as AddressInfo).port;
  }

  it("passes when /healthz answers 200 on $PORT", async () => {
    expect(await healthcheck(await serve(200))).toBe(0);
  });

  it("fails when /healthz answers 503", async () => {
    expect(await healthcheck(await serve(503))).toBe(1);
  });

  it("fails when nothing listens", async () => {
    const port = await serve(200);
    await new Promise<void>((resolve) => stub!.close(() => resolve()));
    stub = undefined;
    expect(await healthcheck(port)).toBe(1);
  });
});
