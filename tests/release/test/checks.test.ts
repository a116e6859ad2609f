/**
 * The dry run's own checks, given releases that are wrong in one way each: each must be named, so a
 * dry run that finds no problem has looked.
 */
import { describe, expect, it } from "vitest";
import { addedLines, checkVersioned, provenanceBlockers } from "../../../scripts/release/checks.mjs";

const changeset = {
  file: "a-fix.md",
  releases: { "@roundtrip/sdk": "patch" },
  summary: "Client: a fix\nover two lines",
};

function release(overrides: { to?: string; added?: string; dependency?: string; files?: string[] } = {}) {
  const to = overrides.to ?? "0.1.1";
  const versioned = [
    { name: "@roundtrip/sealing", from: "0.1.0", to: "0.1.0" },
    { name: "@roundtrip/sdk", from: "0.1.0", to },
  ];
  const files = overrides.files ?? ["package.json", "dist/index.js", "dist/index.d.ts"];
  const planned = [
    {
      name: "@roundtrip/sealing",
      to: "0.1.0",
      changelogAdded: "",
      manifest: { version: "0.1.0", exports: { ".": { default: "./dist/index.js" } } },
      publish: { files: ["package.json", "dist/index.js", "dist/index.d.ts"] },
    },
    {
      name: "@roundtrip/sdk",
      to,
      changelogAdded: overrides.added ?? "## 0.1.1\n\n- Client: a fix\n  over two lines\n",
      manifest: {
        version: to,
        dependencies: { "@roundtrip/sealing": overrides.dependency ?? "^0.1.0" },
        exports: { ".": { default: "./dist/index.js" } },
      },
      publish: { files },
    },
  ];
  return checkVersioned([changeset], versioned, planned);
}

describe("the dry run's checks", () => {
  it("find nothing wrong with a right release", () => {
    expect(release()).toEqual([]);
  });

  it("name a package a changeset bumps that stayed at its version", () => {
    expect(release({ to: "0.1.0", added: "- Client: a fix\n  over two lines" })).toEqual([
      "@roundtrip/sdk stays at 0.1.0 although .changeset/a-fix.md bumps it",
    ]);
  });

  it("name a changelog without a changeset's text", () => {
    expect(release({ added: "## 0.1.1\n\n- Client: a fix\n" })).toEqual([
      `@roundtrip/sdk's CHANGELOG would lack the text of .changeset/a-fix.md: "over two lines"`,
    ]);
  });

  it("name a dependency left at workspace: or at another version than the one released with it", () => {
    expect(release({ dependency: "workspace:^" })).toEqual([
      "@roundtrip/sdk's tarball still names a workspace: range",
      "@roundtrip/sdk would depend on @roundtrip/sealing@workspace:^, not on the 0.1.0 released with it",
    ]);
    expect(release({ dependency: "^0.0.9" })).toEqual([
      "@roundtrip/sdk would depend on @roundtrip/sealing@^0.0.9, not on the 0.1.0 released with it",
    ]);
  });

  it("name a tarball without dist/, or without a file its exports name", () => {
    expect(release({ files: ["package.json", "README.md"] })).toEqual([
      "@roundtrip/sdk's tarball has no dist/",
    ]);
    expect(release({ files: ["package.json", "dist/other.js"] })).toEqual([
      "@roundtrip/sdk's tarball lacks dist/index.js",
    ]);
  });

  it("name a package without the repository.url that npm checks provenance against, or with another one", () => {
    expect(provenanceBlockers([{ name: "@roundtrip/sdk" }], undefined)).toEqual([
      "@roundtrip/sdk's package.json has no repository.url; add the GitHub repository's URL (with directory) there",
    ]);
    const manifest = {
      name: "@roundtrip/sdk",
      repository: { url: "git+https://github.com/acme/roundtrip.git" },
    };
    expect(provenanceBlockers([manifest], "acme/roundtrip")).toEqual([]);
    expect(provenanceBlockers([manifest], "other/fork")).toEqual([
      "@roundtrip/sdk's repository.url is git+https://github.com/acme/roundtrip.git, but the workflow runs in github.com/other/fork",
    ]);
  });

  it("take as added what versioning inserted into a changelog, wherever it went", () => {
    expect(
      addedLines("# sdk\n\n## 0.1.0\n\nfirst\n", "# sdk\n\n## 0.2.0\n\n- new\n\n## 0.1.0\n\nfirst\n"),
    ).toBe("## 0.2.0\n- new\n\n");
  });
});
