/** `pnpm run x -- --flag` passes the `--` through; drop it so parseArgs sees the flags. */
export function cliArgs(): string[] {
  const argv = process.argv.slice(2);
  return argv[0] === "--" ? argv.slice(1) : argv;
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `3s`, `5m`, `1h`; a bare number is seconds. Returns milliseconds. */
export function parseDuration(text: string, what: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match?.[1]) throw new Error(`${what}: "${text}" is not a duration like 10s, 5m or 500ms`);
  return Number(match[1]) * (UNITS[match[2] ?? "s"] ?? 1000);
}

export function parsePositive(text: string, what: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${what}: "${text}" is not a positive number`);
  return value;
}

export function parseShare(text: string, what: string): number {
  const value = Number(text.endsWith("%") ? Number(text.slice(0, -1)) / 100 : text);
  if (!Number.isFinite(value) || value <= 0 || value > 1) {
    throw new Error(`${what}: "${text}" is not a share in (0, 1], like 0.5 or 50%`);
  }
  return value;
}

/** A flag's value, else the environment variable's, else the default. */
export function pick(flag: string | undefined, env: string, fallback: string): string {
  return flag ?? process.env[env] ?? fallback;
}
