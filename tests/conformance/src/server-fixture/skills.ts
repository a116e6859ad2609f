import { SkillCatalog } from "@roundtrip/sdk/server";

const MANIFEST = `---
name: fixture-forms
description: Fill in the conformance suite's sample forms, field by field
metadata:
  owner: roundtrip
---

# Fixture forms

Read references/FIELDS.md for the fields, then fill them in order.
`;

const FIELDS = `# Fields

1. name
2. date
`;

/**
 * The skills extension scenarios (sep-2640-*) discover what they exercise from skills/list and
 * resources/list: one skill with a file in a subdirectory, so a directory read has a child directory.
 * Two entries per page, so a client walking skills/list follows a cursor.
 */
export function fixtureSkills(): SkillCatalog {
  const catalog = new SkillCatalog({ pageSize: 2 });
  catalog.add("fixture-forms", { files: { "SKILL.md": MANIFEST, "references/FIELDS.md": FIELDS } });
  for (const name of ["fixture-notes", "fixture-review"]) {
    catalog.add(name, {
      files: {
        "SKILL.md": `---\nname: ${name}\ndescription: A second-page probe named ${name}\n---\n\nBody.\n`,
      },
    });
  }
  return catalog;
}
