/** A short, safe description of a value's type for error messages: never the value itself. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "Array";
  if (typeof value === "object") return value.constructor?.name ?? "object";
  return typeof value;
}
