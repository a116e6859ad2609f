import { describe, expect, it } from "vitest";
import { Client } from "../../../client/client.js";
import { SkillIntegrityError } from "../../../client/errors.js";
import { McpError } from "../../../protocol/errors.js";
import { GetSkillResultSchema, ListSkillsResultSchema } from "../../../protocol/schemas/skills.js";
import { SKILLS_EXTENSION, skillDigest } from "../../../protocol/skills.js";
import { Server } from "../../server.js";
import { McpServer } from "../mcp-server.js";
import { SkillCatalog } from "./catalog.js";

const MANIFEST = `---
name: deploy
description: Deploy the service safely
metadata:
  owner: platform
---

# Deploy

See scripts/check.sh and docs/steps/ONE.md.
`;
const CHECK = "#!/bin/sh\necho ok\n";
const ONE = "# Step one\n";

function deploySkill(): McpServer {
  const mcp = new McpServer({ name: "skills-unit" }, { skills: { directoryRead: true, pageSize: 1 } });
  mcp.skill("deploy", {
    files: { "SKILL.md": MANIFEST, "scripts/check.sh": CHECK, "docs/steps/ONE.md": ONE },
  });
  return mcp;
}

async function invalidParams(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(-32602);
  return (error as McpError).message;
}

describe("McpServer.skill", () => {
  it("declares the extension with directoryRead and keeps the resources capability", async () => {
    const client = new Client(deploySkill().server);
    const description = await client.connect();
    expect(description.capabilities?.extensions?.[SKILLS_EXTENSION]).toEqual({ directoryRead: true });
    expect(description.capabilities?.resources).toBeDefined();
  });

  it("lists the skill with its front matter verbatim and every file's digest and size", async () => {
    const client = new Client(deploySkill().server);
    const listed = ListSkillsResultSchema.parse(await client.listSkills());
    expect(listed.skills).toEqual([
      {
        uri: "skill://deploy/SKILL.md",
        frontmatter: {
          name: "deploy",
          description: "Deploy the service safely",
          metadata: { owner: "platform" },
        },
        resources: [
          {
            uri: "skill://deploy/SKILL.md",
            digest: skillDigest(Buffer.from(MANIFEST)),
            size: MANIFEST.length,
          },
          {
            uri: "skill://deploy/docs/steps/ONE.md",
            digest: skillDigest(Buffer.from(ONE)),
            size: ONE.length,
          },
          {
            uri: "skill://deploy/scripts/check.sh",
            digest: skillDigest(Buffer.from(CHECK)),
            size: CHECK.length,
          },
        ],
      },
    ]);
    expect(listed.ttlMs).toBeGreaterThanOrEqual(0);
    expect(listed.cacheScope).toBeDefined();
  });

  it("answers skills/get by name or URI, and -32602 for a skill it does not serve", async () => {
    const client = new Client(deploySkill().server);
    const got = GetSkillResultSchema.parse(await client.getSkill("deploy"));
    expect(got.skill.uri).toBe("skill://deploy/SKILL.md");
    expect(got).not.toHaveProperty("nextCursor");
    expect((await client.getSkill("skill://deploy/SKILL.md")).skill.frontmatter.name).toBe("deploy");
    expect(await invalidParams(client.getSkill("missing"))).toContain("skill://missing/SKILL.md");
  });

  it("serves each file as a resource, SKILL.md named and described by its front matter", async () => {
    const client = new Client(deploySkill().server);
    const { resources } = await client.listResources();
    expect(resources.find((r) => r.uri === "skill://deploy/SKILL.md")).toMatchObject({
      name: "deploy",
      description: "Deploy the service safely",
      mimeType: "text/markdown",
    });
    const { skill } = await client.getSkill("deploy");
    const check = await client.readSkillFile(skill, "skill://deploy/scripts/check.sh");
    expect(check.text).toBe(CHECK);
    expect((await client.readSkillFile(skill)).text).toBe(MANIFEST);
  });

  it("pages skills/list without splitting an entry, and refuses a cursor it did not issue", async () => {
    const mcp = deploySkill();
    mcp.skill("audit", { files: { "SKILL.md": "---\nname: audit\ndescription: Audit it\n---\n" } });
    const client = new Client(mcp.server);
    const first = await client.listSkills();
    expect(first.skills.map((s) => s.frontmatter.name)).toEqual(["audit"]);
    expect(first.nextCursor).toBeTypeOf("string");
    const all = await client.listSkills({ all: true });
    expect(all.skills.map((s) => s.frontmatter.name)).toEqual(["audit", "deploy"]);
    await invalidParams(client.listSkills({ cursor: "not-ours" }));
  });

  it("lists a directory's direct children, subdirectories as inode/directory, and refuses a file", async () => {
    const client = new Client(deploySkill().server);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.readResourceDirectory("skill://deploy", cursor ? { cursor } : {});
      seen.push(...page.resources.map(({ uri, mimeType }) => ({ uri, mimeType })));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([
      { uri: "skill://deploy/SKILL.md", mimeType: "text/markdown" },
      { uri: "skill://deploy/docs", mimeType: "inode/directory" },
      { uri: "skill://deploy/scripts", mimeType: "inode/directory" },
    ]);
    expect(await invalidParams(client.readResourceDirectory("skill://deploy/SKILL.md"))).toContain(
      "Not a directory",
    );
  });

  it("does not serve directory reads unless asked to", async () => {
    const mcp = new McpServer({ name: "skills-unit" });
    mcp.skill("deploy", { files: { "SKILL.md": MANIFEST } });
    const client = new Client(mcp.server);
    expect((await client.connect()).capabilities?.extensions?.[SKILLS_EXTENSION]).toEqual({});
    const error = await client.readResourceDirectory("skill://deploy").catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32601);
  });

  it.each([
    ["no front matter", "deploy", { "SKILL.md": "# Deploy\n" }, "has no front matter"],
    ["no description", "deploy", { "SKILL.md": "---\nname: deploy\n---\n" }, "needs a non-empty description"],
    [
      "a name other than its own",
      "deploy",
      { "SKILL.md": "---\nname: ship\ndescription: d\n---\n" },
      "names it 'ship'",
    ],
    ["no SKILL.md", "deploy", { "README.md": "x" }, "needs a SKILL.md"],
    ["a path escaping its directory", "deploy", { "SKILL.md": MANIFEST, "../etc/passwd": "x" }, "'..'"],
    ["an absolute path", "deploy", { "SKILL.md": MANIFEST, "/etc/passwd": "x" }, "is absolute"],
    ["an invalid name", "Deploy--It", { "SKILL.md": MANIFEST }, "lowercase letters"],
    [
      "more than 512 files",
      "deploy",
      {
        "SKILL.md": MANIFEST,
        ...Object.fromEntries(Array.from({ length: 512 }, (_, i) => [`f/${i}.md`, "x"])),
      },
      "at most 512 files",
    ],
    [
      "more than 16 MiB",
      "deploy",
      { "SKILL.md": MANIFEST, "data.bin": new Uint8Array(16 * 1024 * 1024) },
      "16 MiB",
    ],
  ])("refuses a skill with %s, and registers nothing", async (_case, name, files, message) => {
    const mcp = new McpServer({ name: "skills-unit" });
    expect(() => mcp.skill(name, { files })).toThrow(message);
    const client = new Client(mcp.server);
    expect((await client.connect()).capabilities?.extensions).toBeUndefined();
  });

  it("refuses a duplicate name and keeps the first", async () => {
    const mcp = deploySkill();
    expect(() => mcp.skill("deploy", { files: { "SKILL.md": MANIFEST } })).toThrow("already registered");
    expect((await new Client(mcp.server).listSkills({ all: true })).skills).toHaveLength(1);
  });

  it("removes a skill and its resources together", async () => {
    const mcp = new McpServer({ name: "skills-unit" });
    const registration = mcp.skill("deploy", { files: { "SKILL.md": MANIFEST } });
    registration.remove();
    const client = new Client(mcp.server);
    expect((await client.listSkills()).skills).toEqual([]);
    expect((await client.listResources()).resources).toEqual([]);
  });
});

describe("Client.readSkillFile", () => {
  /** A server whose entry promises other bytes than it serves. */
  function lyingServer(served: string): Server {
    const catalog = new SkillCatalog();
    catalog.add("deploy", { files: { "SKILL.md": MANIFEST } });
    return new Server({ name: "lying", version: "1.0.0" })
      .onListResources(() => ({ resources: catalog.resources() }))
      .onReadResource((_ctx, { uri }) => ({ contents: [{ uri, mimeType: "text/markdown", text: served }] }))
      .onListSkills((_ctx, params) => catalog.list(params.cursor))
      .onGetSkill((_ctx, params) => catalog.get(params.uri));
  }

  it.each([
    ["digest", MANIFEST.replace("safely", "SAFELY")],
    ["size", `${MANIFEST}more`],
  ])("refuses a %s mismatch with an error naming the file", async (reason, served) => {
    const client = new Client(lyingServer(served));
    const { skill } = await client.getSkill("deploy");
    const error = await client.readSkillFile(skill).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillIntegrityError);
    expect(error).toMatchObject({ uri: "skill://deploy/SKILL.md", reason, code: "ERR_SKILL_INTEGRITY" });
    expect((error as Error).message).toContain("skill://deploy/SKILL.md");
  });

  it("refuses SKILL.md whose front matter differs from the entry's, even with a matching digest", async () => {
    const client = new Client(lyingServer(MANIFEST));
    const { skill } = await client.getSkill("deploy");
    const forged = { ...skill, frontmatter: { ...skill.frontmatter, description: "Something else" } };
    await expect(client.readSkillFile(forged)).rejects.toMatchObject({ reason: "frontmatter" });
  });

  it("refuses a file the entry does not list", async () => {
    const client = new Client(lyingServer(MANIFEST));
    const { skill } = await client.getSkill("deploy");
    await expect(client.readSkillFile(skill, "skill://deploy/other.md")).rejects.toMatchObject({
      reason: "unlisted",
    });
  });
});
