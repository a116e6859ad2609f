import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalAuthServer } from "@roundtrip/local-auth";
import { type InputResponses, isInputRequiredResult, McpError } from "@roundtrip/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readKeyFile } from "../src/keyring/key-file.js";
import { processState } from "../src/state/shared-state.js";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

const CONFIRMED: InputResponses = { confirm: { action: "accept", content: { confirm: true } } };

let folder: string;
const secret = randomBytes(32).toString("hex");

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "roundtrip-keys-"));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function keyFile(name: string, text: string, mode = 0o600): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, text);
  await chmod(path, mode);
  return path;
}

describe("readKeyFile", () => {
  it("reads one secret per line, newest first, skipping comments and blank lines", async () => {
    const older = randomBytes(32).toString("hex");
    const path = await keyFile("ring", `# rotated 2026-11\n${secret}\n\n${older}\n`);
    expect(await readKeyFile(path)).toEqual({ keys: [secret, older] });
  });

  it.each([
    ["world", 0o644, "644"],
    ["group", 0o640, "640"],
  ])(
    "refuses a file its %s can read, naming the chmod to run, without printing the key",
    async (name, mode, shown) => {
      const path = await keyFile(`open-to-${name}`, `${secret}\n`, mode);
      const message = await readKeyFile(path).then(
        () => "",
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      expect(message).toBe(
        `REQUEST_STATE_KEY_FILE ${path} can be read by group or others (mode ${shown}); restrict it with: chmod 600 ${path}`,
      );
      expect(message).not.toContain(secret);
    },
  );

  it("names the short key and says how to make a good one, without printing it", async () => {
    const path = await keyFile("short", "too-short-secret\n");
    const message = await readKeyFile(path).then(
      () => "",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(message).toMatch(/key 1 is shorter than 32 bytes; replace it .*randomBytes\(32\)/);
    expect(message).not.toContain("too-short-secret");
  });

  it.each([
    ["a repeated placeholder", "a3".repeat(32), /key 1 uses only 1 distinct byte values: it is not random/],
    [
      "a pass phrase",
      "correct horse battery staple, thirty-two bytes or more",
      /key 1 is neither hex nor base64/,
    ],
  ])("refuses %s as a key, saying why, without printing it", async (_name, weak, reason) => {
    const path = await keyFile(`weak-${weak.length}`, `${weak}\n`);
    const message = await readKeyFile(path).then(
      () => "",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(message).toMatch(reason);
    expect(message).toContain("replace it with a random secret");
    expect(message).not.toContain(weak);
  });

  it("says what to do when the file is missing or empty", async () => {
    await expect(readKeyFile(join(folder, "absent"))).rejects.toThrow(/cannot be read \(ENOENT\); create it/);
    await expect(readKeyFile(await keyFile("empty", "# nothing yet\n"))).rejects.toThrow(/holds no key/);
  });
});

describe("two instances sharing a key file", () => {
  let as: LocalAuthServer;
  let first: RunningServer;
  let second: RunningServer;
  let stranger: RunningServer;
  const watch = new LeakWatch();

  beforeAll(async () => {
    as = await startAuthorizationServer();
    const path = await keyFile("shared", `${secret}\n`);
    // One store for the two, as a fleet shares one: deploy records its release where it mints it.
    const sharedState = processState();
    first = await startServer(serverEnvironment(as, { REQUEST_STATE_KEY_FILE: path }), { sharedState });
    second = await startServer(serverEnvironment(as, { REQUEST_STATE_KEY_FILE: path }), { sharedState });
    stranger = await startServer(serverEnvironment(as));
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await stranger?.close();
    await as?.close();
  });

  it("complete each other's rounds, which an instance with its own key refuses", async () => {
    const token = (await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy")).accessToken;
    const args = { service: "ledger", env: "staging" };
    const manualRounds = (server: RunningServer) =>
      mcpClient(server.url, token, watch, { onElicit: () => ({ action: "cancel" }) }).manualRounds;
    const asked = await manualRounds(first).callTool("deploy", args, { allowInputRequired: true });
    if (!isInputRequiredResult(asked) || asked.requestState === undefined)
      throw new Error("expected a sealed round");
    const next = {
      allowInputRequired: true as const,
      requestState: asked.requestState,
      inputResponses: CONFIRMED,
    };

    const carried = await manualRounds(second).callTool("deploy", args, next);
    const refused = await manualRounds(stranger)
      .callTool("deploy", args, next)
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect(isInputRequiredResult(carried) && Object.keys(carried.inputRequests ?? {})).toEqual(["approval"]);
    expect(refused).toBeInstanceOf(McpError);
    expect(stranger.logs.lines().some((line) => line.reason === "unknown key")).toBe(true);
  });

  it("logged neither the key nor a token", () => {
    expect(watch.leaksIn(first.logs.text() + second.logs.text())).toEqual([]);
    expect(first.logs.text()).not.toContain(secret);
  });
});
