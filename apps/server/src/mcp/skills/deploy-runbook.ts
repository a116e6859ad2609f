import { readFileSync } from "node:fs";
import type { McpServer } from "@roundtrip/sdk";

/**
 * The deploy runbook, a skill the model loads before using the deploy tool. Its SKILL.md lives in
 * skills/ at the package root, outside src, so the built server (dist/) and the image (which ships
 * the package's `files`) read the same file from the same relative place.
 */
const RUNBOOK = new URL("../../../skills/deploy-runbook/SKILL.md", import.meta.url);

export function registerDeployRunbook(mcp: McpServer): void {
  mcp.skill("deploy-runbook", { files: { "SKILL.md": readFileSync(RUNBOOK, "utf8") } });
}
