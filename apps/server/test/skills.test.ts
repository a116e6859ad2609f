import type { LocalAuthServer } from "@roundtrip/local-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEnvironment, startAuthorizationServer } from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

let as: LocalAuthServer;
let app: RunningServer;
let token = "";
const watch = new LeakWatch();

beforeAll(async () => {
  as = await startAuthorizationServer();
  app = await startServer(serverEnvironment(as));
  ({ accessToken: token } = await as.authorizationCodeToken("alice", "mcp:tools"));
});

afterAll(async () => {
  await app?.close();
  await as?.close();
});

describe("the deploy runbook skill", () => {
  it("is listed with its front matter and read back verified, from the running server", async () => {
    const client = mcpClient(app.url, token, watch);
    try {
      const { skills } = await client.listSkills({ all: true });
      const runbook = skills.find((skill) => skill.frontmatter.name === "deploy-runbook");
      expect(runbook?.uri).toBe("skill://deploy-runbook/SKILL.md");
      expect(runbook?.frontmatter.description).toContain("roll it back");
      if (!runbook) return;
      const manifest = await client.readSkillFile(runbook);
      expect(manifest.text).toContain("# Deploy runbook");
      expect(manifest.text).toContain("`deploy`");
    } finally {
      await client.close();
    }
  });
});
