import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const SOURCES_DIR = "/etc/apt/sources.list.d";

/** The release's code name (e.g. bookworm), from /etc/os-release. */
async function codename(): Promise<string> {
  const release = await readFile("/etc/os-release", "utf8");
  const name = /^VERSION_CODENAME=(\S+)$/m.exec(release)?.[1];
  if (name === undefined)
    throw new Error("/etc/os-release names no VERSION_CODENAME to find a backports suite for");
  return name;
}

/** Every apt source as [URI, suites], from the one-line and the deb822 forms. */
async function sources(): Promise<[string, string[]][]> {
  const files = ["/etc/apt/sources.list"];
  for (const name of await readdir(SOURCES_DIR).catch(() => [])) files.push(join(SOURCES_DIR, name));
  const found: [string, string[]][] = [];
  for (const file of files) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (file.endsWith(".list")) {
      for (const [, uri = "", suite = ""] of text.matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/gm))
        found.push([uri, [suite]]);
    } else if (file.endsWith(".sources")) {
      for (const stanza of text.split(/\n\s*\n/)) {
        const uri = /^URIs:\s*(\S+)/m.exec(stanza)?.[1];
        const suites = /^Suites:\s*(.+)$/m.exec(stanza)?.[1]?.trim().split(/\s+/) ?? [];
        if (uri !== undefined) found.push([uri, suites]);
      }
    }
  }
  return found;
}

/**
 * The release's backports suite (e.g. bookworm-backports), added to apt's sources from the mirror
 * that already serves the release when it is not there yet; returns its name for `apt-get -t`.
 */
export async function ensureBackports(): Promise<string> {
  const release = await codename();
  const suite = `${release}-backports`;
  const known = await sources();
  if (known.some(([, suites]) => suites.includes(suite))) return suite;
  const mirror = known.find(([, suites]) => suites.includes(release))?.[0];
  if (mirror === undefined) throw new Error(`no apt source serves ${release} to add ${suite} from`);
  await writeFile(join(SOURCES_DIR, `${suite}.list`), `deb ${mirror} ${suite} main\n`);
  return suite;
}
