/**
 * Python's `repr(float)`, which `json.dumps` prints: the same shortest round-trip digits as
 * JavaScript, but fixed notation only for 1e-4 <= |x| < 1e16, an exponent of at least two digits
 * (`1e-07`, `1.5e+300`), and `.0` on integral values (`1782345600.0`). Non-finite values print as
 * `NaN` / `Infinity` / `-Infinity`, as `json.dumps` does by default.
 */
export function pythonFloatRepr(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    const text = String(value);
    return Number.isInteger(value) ? `${text}.0` : text;
  }
  return scientific(value);
}

function scientific(value: number): string {
  const [mantissa = "", exponentText = "0"] = Math.abs(value).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  const head = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  const sign = exponent < 0 ? "-" : "+";
  return `${value < 0 ? "-" : ""}${head}e${sign}${String(Math.abs(exponent)).padStart(2, "0")}`;
}
