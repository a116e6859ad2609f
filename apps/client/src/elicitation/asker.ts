import type { Implementation } from "@roundtrip/sdk";

/** Who is asking: the server's own name, and the host it was reached at (which it cannot fake). */
export interface Asker {
  info: Implementation | undefined;
  serverUrl: string;
}

export function askerLabel(asker: Asker): string {
  const host = new URL(asker.serverUrl).host;
  const info = asker.info;
  if (!info) return host;
  const name = info.title ?? info.name;
  return `${name}${info.version ? ` ${info.version}` : ""} (${host})`;
}
