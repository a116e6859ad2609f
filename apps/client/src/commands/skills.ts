import type { Client, SkillFile } from "@roundtrip/sdk/client";
import { type SkillEntry, skillUri } from "@roundtrip/sdk/protocol";
import type { GlobalFlags } from "../config/settings.js";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.js";
import type { ResultWriter } from "../json-output.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";
import { listingCommand, namesAndDescriptions } from "./listing.js";

/**
 * The server's skills (the io.modelcontextprotocol/skills extension): the list, one skill's SKILL.md,
 * or one of its files by path. Each file is checked against its entry's digest and size by the SDK
 * before it is shown; the server's words reach the terminal escaped, as every peer text does.
 */
export function skillsCommand(
  name: string | undefined,
  path: string | undefined,
  flags: GlobalFlags,
  terminal: Terminal,
  writer: ResultWriter,
): Promise<ExitCodeValue> {
  return listingCommand(flags, terminal, async (client) => {
    if (name === undefined) return listSkills(client, writer);
    const { skill } = await client.getSkill(skillUri(name)).catch((error: unknown) => {
      throw new CliError(
        ExitCode.failure,
        `the server has no skill "${name}" it will show (${(error as Error).message}); \`roundtrip skills\` lists them`,
        { cause: error },
      );
    });
    const file = await client.readSkillFile(skill, path === undefined ? skill.uri : skillUri(name, path));
    if (writer.json) writer.document({ skill, file: fileDocument(file) });
    else
      writer.text(file.text ?? `[${file.mimeType ?? "binary"} ${file.uri}, ${file.bytes.byteLength} bytes]`);
    if (path === undefined && !writer.json) {
      const others = filesOf(skill).filter((uri) => uri !== skill.uri);
      if (others.length > 0) {
        terminal.notice(`Its other files (\`roundtrip skills ${name} <path>\` reads one):`);
        for (const uri of others) terminal.notice(`  ${safeInline(uri)}`);
      }
    }
  });
}

async function listSkills(client: Client, writer: ResultWriter): Promise<void> {
  const { skills } = await client.listSkills({ all: true });
  if (writer.json) {
    writer.document({ skills });
    return;
  }
  if (skills.length === 0) {
    writer.text("The server offers no skills.");
    return;
  }
  writer.text(
    namesAndDescriptions(skills.map((skill) => [skill.frontmatter.name, skill.frontmatter.description])),
  );
}

function filesOf(skill: SkillEntry): string[] {
  return Array.isArray(skill.resources) ? skill.resources.map((resource) => resource.uri) : [];
}

function fileDocument(file: SkillFile) {
  return {
    uri: file.uri,
    ...(file.mimeType === undefined ? {} : { mimeType: file.mimeType }),
    size: file.bytes.byteLength,
    ...(file.text === undefined ? { blob: Buffer.from(file.bytes).toString("base64") } : { text: file.text }),
  };
}
