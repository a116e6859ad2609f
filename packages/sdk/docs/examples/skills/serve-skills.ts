import { fileURLToPath } from "node:url";
import { McpServer } from "@roundtrip/sdk";
import { skillsFromDirectory } from "@roundtrip/sdk/server";

const mcp = new McpServer({ name: "ops", version: "1.0.0" }, { skills: { directoryRead: true } });

// A skill written inline: SKILL.md's front matter names it and says what it is for.
mcp.skill("release-notes", {
  files: {
    "SKILL.md": [
      "---",
      "name: release-notes",
      "description: Write release notes from the merged changes",
      "---",
      "",
      "Group the changes by package; templates/NOTES.md is the layout.",
      "",
    ].join("\n"),
    "templates/NOTES.md": "# {version}\n\n## Added\n\n## Fixed\n",
  },
});

// Every skill under ./skills, one directory each, named as its SKILL.md names it.
const skillsDir = fileURLToPath(new URL("./skills", import.meta.url));
for (const skill of await skillsFromDirectory(skillsDir)) mcp.skill(skill.name, skill);
