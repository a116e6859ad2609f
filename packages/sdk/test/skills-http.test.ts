import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/client/client.js";
import { silentLogger } from "../src/protocol/logger.js";
import {
  GetSkillResultSchema,
  ListSkillsResultSchema,
  ReadResourceDirectoryResultSchema,
} from "../src/protocol/schemas/skills.js";
import { SKILLS_EXTENSION, skillDigest } from "../src/protocol/skills.js";
import { McpServer } from "../src/server/mcp-server/mcp-server.js";
import { skillsFromDirectory } from "../src/server/mcp-server/skills/from-directory.js";
import { createNodeHandler } from "../src/server/transport/http-server.js";
import { assertSkillsSchema } from "../src/test-support/skills-schema.js";

/**
 * Skills read from a real directory on disk and served by McpServer over real HTTP on port 0; a real
 * Client lists, gets, walks and reads them back, verifying each file's digest.
 */

const RUNBOOK = `---
name: runbook
description: Roll a release out and back
---

Run scripts/verify.sh before and after.
`;
const VERIFY = "#!/bin/sh\ncurl -fsS http://localhost/health\n";
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]);

let root = "";
let http: HttpServer | undefined;
let url = "";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "roundtrip-skills-"));
  await mkdir(join(root, "runbook", "scripts"), { recursive: true });
  await mkdir(join(root, "runbook", "assets"), { recursive: true });
  await writeFile(join(root, "runbook", "SKILL.md"), RUNBOOK);
  await writeFile(join(root, "runbook", "scripts", "verify.sh"), VERIFY);
  await writeFile(join(root, "runbook", "assets", "logo.png"), LOGO);
  await writeFile(join(root, "runbook", ".DS_Store"), "x");
  await mkdir(join(root, "notes"));
  await writeFile(join(root, "notes", "README.md"), "not a skill: no SKILL.md");

  const mcp = new McpServer(
    { name: "skills-http" },
    { logger: silentLogger, skills: { directoryRead: true } },
  );
  for (const skill of await skillsFromDirectory(root)) mcp.skill(skill.name, skill);
  const handle = createNodeHandler(mcp.server);
  http = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  http?.closeAllConnections();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  await rm(root, { recursive: true, force: true });
});

describe("skills over HTTP, loaded from disk", () => {
  it("declares the extension, lists the skill and gets it, results valid against the extension's schemas", async () => {
    const client = new Client(url, { logger: silentLogger });
    try {
      const { capabilities } = await client.connect();
      expect(capabilities?.extensions?.[SKILLS_EXTENSION]).toEqual({ directoryRead: true });
      expect(capabilities?.extensions?.[SKILLS_EXTENSION]).toBeDefined();
      assertSkillsSchema("SkillsCapability", capabilities?.extensions?.[SKILLS_EXTENSION]);
      const page = await client.listSkills();
      assertSkillsSchema("ListSkillsResult", page);
      const listed = ListSkillsResultSchema.parse(await client.listSkills({ all: true }));
      expect(listed.skills.map((skill) => skill.uri)).toEqual(["skill://runbook/SKILL.md"]);
      expect(listed.skills[0]?.resources).toEqual([
        { uri: "skill://runbook/SKILL.md", digest: skillDigest(Buffer.from(RUNBOOK)), size: RUNBOOK.length },
        { uri: "skill://runbook/assets/logo.png", digest: skillDigest(LOGO), size: LOGO.byteLength },
        {
          uri: "skill://runbook/scripts/verify.sh",
          digest: skillDigest(Buffer.from(VERIFY)),
          size: VERIFY.length,
        },
      ]);
      const raw = await client.getSkill("runbook");
      assertSkillsSchema("GetSkillResult", raw);
      const got = GetSkillResultSchema.parse(raw);
      expect(got.skill).toEqual(listed.skills[0]);
      const rawDirectory = await client.readResourceDirectory("skill://runbook");
      assertSkillsSchema("ReadResourceDirectoryResult", rawDirectory);
      const directory = ReadResourceDirectoryResultSchema.parse(rawDirectory);
      expect(directory.resources.map(({ uri, mimeType }) => ({ uri, mimeType }))).toEqual([
        { uri: "skill://runbook/SKILL.md", mimeType: "text/markdown" },
        { uri: "skill://runbook/assets", mimeType: "inode/directory" },
        { uri: "skill://runbook/scripts", mimeType: "inode/directory" },
      ]);
    } finally {
      await client.close();
    }
  });

  it("reads every file back verified, text as text and binary as bytes", async () => {
    const client = new Client(url, { logger: silentLogger });
    try {
      const { skill } = await client.getSkill("runbook");
      expect((await client.readSkillFile(skill)).text).toBe(RUNBOOK);
      expect((await client.readSkillFile(skill, "skill://runbook/scripts/verify.sh")).text).toBe(VERIFY);
      const logo = await client.readSkillFile(skill, "skill://runbook/assets/logo.png");
      expect(logo.text).toBeUndefined();
      expect([...logo.bytes]).toEqual([...LOGO]);
    } finally {
      await client.close();
    }
  });
});

describe("skillsFromDirectory", () => {
  it("refuses a link that leads out of the skill's directory, naming it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-skills-escape-"));
    try {
      await mkdir(join(dir, "leaky"));
      await writeFile(join(dir, "leaky", "SKILL.md"), "---\nname: leaky\ndescription: d\n---\n");
      await writeFile(join(dir, "secret.txt"), "outside");
      await symlink(join(dir, "secret.txt"), join(dir, "leaky", "secret.txt"));
      await expect(skillsFromDirectory(dir)).rejects.toThrow(
        /leaky\/secret\.txt resolves to .*outside the skill directory/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a directory that holds no skill", async () => {
    const dir = await mkdtemp(join(tmpdir(), "roundtrip-skills-empty-"));
    try {
      await expect(skillsFromDirectory(dir)).rejects.toThrow("holds no skill");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
