import { Client } from "@roundtrip/sdk";
import { SkillIntegrityError } from "@roundtrip/sdk/client";

const client = new Client("http://localhost:3000/mcp");

// Listing reads no file: a host fetches a skill's files only once it decides to load the skill.
const { skills } = await client.listSkills({ all: true });
for (const skill of skills) console.log(`${skill.frontmatter.name}: ${skill.frontmatter.description}`);

const chosen = skills.find((skill) => skill.frontmatter.name === "release-notes");
if (chosen) {
  try {
    const manifest = await client.readSkillFile(chosen); // SKILL.md, checked against the entry
    console.log(manifest.text);
  } catch (error) {
    if (!(error instanceof SkillIntegrityError)) throw error;
    console.error(`not loading ${error.uri}: ${error.message}`);
  }
}
await client.close();
