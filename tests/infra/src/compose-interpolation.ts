/**
 * Compose's variable interpolation for the forms the templates use (`${NAME}`, `${NAME:-default}`,
 * `${NAME-default}`, and `$$` for a literal `$`), as the compose specification defines them. Any other
 * form throws rather than being read wrongly: a check of the interpolated file would then pass for
 * the wrong reason.
 */
export function interpolate(value: string, env: Readonly<Record<string, string | undefined>>): string {
  return value.replace(
    /\$\$|\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced?: string, bare?: string) => {
      if (whole === "$$") return "$";
      if (bare !== undefined) return env[bare] ?? "";
      const match = braced!.match(/^([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)(.*))?$/);
      if (match === null) throw new Error(`unsupported interpolation ${whole}`);
      const [, name, operator, fallback] = match;
      const set = env[name!];
      if (operator === ":-") return set === undefined || set === "" ? fallback! : set;
      if (operator === "-") return set === undefined ? fallback! : set;
      return set ?? "";
    },
  );
}

/** The names a value interpolates, so a check can tell which variable drives which setting. */
export function interpolatedNames(value: string): string[] {
  return [
    ...value.replaceAll("$$", "").matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)|\$([A-Za-z_][A-Za-z0-9_]*)/g),
  ].map((match) => (match[1] ?? match[2])!);
}
