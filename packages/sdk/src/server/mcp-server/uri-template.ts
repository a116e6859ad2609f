/**
 * RFC 6570 URI templates, levels 1 and 2 (`{var}`, `{+var}`, `{#var}`), in both directions: expand
 * values into a URI and match a URI back to its values. The common npm packages only expand, and
 * resource templates need matching, so this is kept small and strict: anything beyond level 2 is
 * refused when the template is registered rather than matched loosely later.
 */

/** The variable names a template literal type declares, e.g. `"repo" | "path"` for `git://{repo}/{+path}`. */
export type TemplateVariableNames<T extends string> = T extends `${string}{${infer Expression}}${infer Rest}`
  ?
      | (Expression extends `+${infer Name}` ? Name : Expression extends `#${infer Name}` ? Name : Expression)
      | TemplateVariableNames<Rest>
  : never;

/** True for a literal that contains an expression, false for a literal without one, boolean when unknown. */
export type IsUriTemplate<T extends string> = string extends T
  ? boolean
  : T extends `${string}{${string}}${string}`
    ? true
    : false;

type Operator = "" | "+" | "#";

interface Expression {
  operator: Operator;
  name: string;
}

type Part = { literal: string } | { expression: Expression };

export interface UriTemplate {
  readonly template: string;
  readonly variables: readonly string[];
  /** The variable values when `uri` is an expansion of this template, else undefined. */
  match(uri: string): Record<string, string> | undefined;
  expand(values: Readonly<Record<string, string>>): string;
}

const NAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
const UNSUPPORTED_OPERATORS = new Set([".", "/", ";", "?", "&", "=", ",", "!", "@", "|"]);

export function isUriTemplate(uri: string): boolean {
  return uri.includes("{");
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf("{");
    const strayClose = rest.indexOf("}");
    if (strayClose !== -1 && (open === -1 || strayClose < open)) {
      throw new TypeError(`URI template '${template}' has a '}' without a matching '{'`);
    }
    if (open === -1) {
      parts.push({ literal: rest });
      break;
    }
    if (open > 0) parts.push({ literal: rest.slice(0, open) });
    const close = rest.indexOf("}", open);
    if (close === -1) throw new TypeError(`URI template '${template}' has a '{' that is never closed`);
    parts.push({ expression: parseExpression(template, rest.slice(open + 1, close)) });
    rest = rest.slice(close + 1);
  }
  return parts;
}

function parseExpression(template: string, body: string): Expression {
  const first = body.charAt(0);
  const operator: Operator = first === "+" || first === "#" ? first : "";
  const name = operator ? body.slice(1) : body;
  if (UNSUPPORTED_OPERATORS.has(first) || name.includes(",") || /[:*]/.test(name)) {
    throw new TypeError(
      `URI template '${template}' uses '{${body}}', which is beyond RFC 6570 level 2; use {name}, {+name} or {#name}, one variable per expression`,
    );
  }
  if (!NAME.test(name))
    throw new TypeError(`URI template '${template}' has an invalid variable name '${name}'`);
  return { operator, name };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Reserved and fragment expansion keep reserved characters; simple expansion encodes them. */
function encode(value: string, operator: Operator): string {
  if (operator === "")
    return encodeURIComponent(value).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  return encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, "%$1");
}

function decode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

export function compileUriTemplate(template: string): UriTemplate {
  const parts = parse(template);
  const variables: string[] = [];
  let pattern = "^";
  for (const part of parts) {
    if ("literal" in part) {
      pattern += escapeRegExp(part.literal);
      continue;
    }
    const { operator, name } = part.expression;
    if (variables.includes(name)) {
      throw new TypeError(`URI template '${template}' uses the variable '${name}' twice; name each one once`);
    }
    variables.push(name);
    // A simple value cannot contain a reserved character unencoded, so it stops at the next one.
    if (operator === "") pattern += "([^/?#]+)";
    else if (operator === "+") pattern += "(.+?)";
    else pattern += "#(.*)";
  }
  const regex = new RegExp(`${pattern}$`, "s");
  return {
    template,
    variables,
    match(uri) {
      const found = regex.exec(uri);
      if (!found) return undefined;
      const values: Record<string, string> = {};
      for (const [index, name] of variables.entries()) {
        const value = decode(found[index + 1] ?? "");
        if (value === undefined) return undefined;
        values[name] = value;
      }
      return values;
    },
    expand(values) {
      return parts
        .map((part) => {
          if ("literal" in part) return part.literal;
          const { operator, name } = part.expression;
          const value = values[name];
          if (value === undefined) return "";
          return (operator === "#" ? "#" : "") + encode(value, operator);
        })
        .join("");
    },
  };
}
