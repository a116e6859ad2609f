import type { Implementation } from "@roundtrip/sdk/protocol";
import { safeInline } from "../terminal/safe-text.js";

/** Who is asking: the server's own name, and the host it was reached at (which it cannot fake). */
export interface Asker {
  info: Implementation | undefined;
  serverUrl: string;
}

/** The server's name and version are its own words, so they are escaped; the host is ours. */
export function askerLabel(asker: Asker): string {
  const host = new URL(asker.serverUrl).host;
  const info = asker.info;
  if (!info) return host;
  const name = info.title ?? info.name;
  return `${safeInline(name)}${info.version ? ` ${safeInline(info.version)}` : ""} (${host})`;
}
