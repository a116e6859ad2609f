import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, run } from "./repository.js";

// The layering of @roundtrip/sdk is enforced by lint: a module written where it would break the rule
// must fail `biome lint`, with the message that says what to do; one that keeps it must pass. The
// probes go into a scratch tree laid out like the repository, under the repository's own biome.json,
// so the real tree is never written to while other suites read it.
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "roundtrip-layers-"));
  await copyFile(join(repoRoot, "biome.json"), join(scratch, "biome.json"));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

let probes = 0;
async function lint(
  folder: string,
  source: string,
  file = `probe-${++probes}.ts`,
): Promise<{ failed: boolean; output: string }> {
  const path = join(scratch, folder, file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, source);
  const biome = join(repoRoot, "node_modules", ".bin", "biome");
  return run(biome, ["lint", "--vcs-enabled=false", "--max-diagnostics=5", path], { cwd: scratch }).then(
    ({ stdout, stderr }) => ({ failed: false, output: stdout + stderr }),
    (error: { stdout?: string; stderr?: string }) => ({
      failed: true,
      output: `${error.stdout}${error.stderr}`,
    }),
  );
}

describe("lint keeps the SDK's layers", () => {
  it.each([
    [
      "packages/sdk/src/client",
      'import { Server } from "../server/server.js";',
      "client/ never imports server/",
    ],
    [
      "packages/sdk/src/client/oauth",
      'import { McpServer } from "../../server/mcp-server/mcp-server.js";',
      "client/ never imports server/",
    ],
    [
      "packages/sdk/src/server/mcp-server",
      'import { Client } from "../../client/client.js";',
      "server/ never imports client/",
    ],
    [
      "packages/sdk/src/protocol",
      'import { Client } from "../client/client.js";',
      "protocol/ is the bottom layer",
    ],
    [
      "packages/sdk/src/protocol/auth",
      'import { Server } from "../../server/server.js";',
      "protocol/ is the bottom layer",
    ],
    [
      "packages/sdk/src/server",
      'import { handle } from "../test-support/in-process.js";',
      "production modules never import",
    ],
    [
      "apps/server/src",
      'import { startStack } from "../test/support/stack.js";',
      "production modules never import",
    ],
    [
      "packages/sdk/src/server",
      'import { RedisOnceStore } from "./fleet/redis/index.js";',
      "Only server/fleet/redis/ imports the Redis implementations",
    ],
    [
      "packages/sdk/src/server/mcp-server",
      'import { RedisOnceStore } from "../fleet/redis/redis-once-store.js";',
      "Only server/fleet/redis/ imports the Redis implementations",
    ],
    [
      "packages/sdk/src/server/fleet",
      'import { RedisNotificationBus } from "./redis/redis-notification-bus.js";',
      "Only server/fleet/redis/ imports the Redis implementations",
    ],
    [
      "packages/sdk/src/server/legacy",
      'import { RedisSessionRegistry } from "@roundtrip/sdk/redis";',
      "Only server/fleet/redis/ imports the Redis implementations",
    ],
    [
      "packages/sdk/src/server/fleet/redis",
      'import { Client } from "../../../client/client.js";',
      "server/ never imports client/",
    ],
    [
      "packages/sdk/src/server",
      'import { resolveLegacyOptions } from "./legacy/options.js";',
      "The core server never imports server/legacy/",
    ],
    [
      "packages/sdk/src/server/transport",
      'import { LegacyHttp } from "../legacy/legacy-http.js";',
      "The core server never imports server/legacy/",
    ],
    [
      "packages/sdk/src/server/mcp-server",
      'import { LegacyEndpoint } from "../legacy/legacy-endpoint.js";',
      "The core server never imports server/legacy/",
    ],
    [
      "packages/sdk/src/server/legacy",
      'import { Client } from "../../client/client.js";',
      "server/ never imports client/",
    ],
    [
      "packages/sdk/src/server/fleet/redis",
      'import { connectedClient } from "./test-support/connected-client.js";',
      "production modules never import",
    ],
  ])("a module in %s that does %s fails", async (folder, line, message) => {
    const { failed, output } = await lint(
      folder,
      `${line}\nexport const probe = [${line.match(/\{ (\w+) \}/)![1]}];\n`,
    );
    expect(failed).toBe(true);
    expect(output).toContain("noRestrictedImports");
    expect(output).toContain(message);
  });

  it.each([
    ["packages/sdk/src/client", 'import { isCarrierMethod } from "../protocol/carriers.js";'],
    ["packages/sdk/src/server/transport", 'import { isCarrierMethod } from "../../protocol/carriers.js";'],
    [
      "packages/sdk/src/server/mcp-server",
      'import { MemoryOnceStore } from "../fleet/memory-once-store.js";',
    ],
    ["packages/sdk/src/server/fleet/redis", 'import { sendWithDeadline } from "./command-deadline.js";'],
    ["packages/sdk/src/server/fleet/redis", 'import { LocalListeners } from "../local-listeners.js";'],
    ["packages/sdk/src/server/transport", 'import { LegacyMethod } from "../../protocol/schemas/legacy.js";'],
    ["packages/sdk/src/server/legacy", 'import { Server } from "../server.js";'],
    ["packages/sdk/src/server/fleet", 'import { LegacySession } from "../legacy/session.js";'],
  ])("a module in %s that does %s passes", async (folder, line) => {
    const { failed, output } = await lint(
      folder,
      `${line}\nexport const probe = [${line.match(/\{ (\w+) \}/)![1]}];\n`,
    );
    expect(output).not.toContain("noRestrictedImports");
    expect(failed).toBe(false);
  });

  it("lets the server's entry compose the 2025 era, and only the entry", async () => {
    const line = 'import { McpServer } from "./legacy/both-eras.js";\nexport const probe = [McpServer];\n';
    const entry = await lint("packages/sdk/src/server", line, "index.ts");
    expect(entry.output).not.toContain("noRestrictedImports");
    expect(entry.failed).toBe(false);
    const other = await lint("packages/sdk/src/server", line, "fastify.ts");
    expect(other.failed).toBe(true);
    expect(other.output).toContain("The core server never imports server/legacy/");
  });
});

describe("the server's folders", () => {
  it("has no server/once folder: once-rounds live in server/mcp-server/, what a fleet shares of them in server/fleet/", () => {
    expect(existsSync(join(repoRoot, "packages/sdk/src/server/once"))).toBe(false);
    expect(existsSync(join(repoRoot, "packages/sdk/src/server/mcp-server/once-rounds.ts"))).toBe(true);
  });
});
