/** An HTML form as a browser would submit it: where to, and its prefilled fields. */
export interface HtmlForm {
  action: string;
  fields: Record<string, string>;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (whole, name: string) => {
    const known = ENTITIES[name.toLowerCase()];
    if (known !== undefined) return known;
    if (name.startsWith("#x") || name.startsWith("#X"))
      return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return whole;
  });
}

function attributesOf(tag: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of tag.matchAll(/([a-zA-Z_:-]+)\s*=\s*"([^"]*)"/g)) {
    const [, name, value] = match;
    if (name !== undefined && value !== undefined) attributes[name.toLowerCase()] = decodeEntities(value);
  }
  return attributes;
}

/**
 * The first POST form of a page, as a browser would submit it. Meant for oidc-provider's development
 * interactions and the small pages of apps tested against them, which are regular enough that their tags
 * can be read without an HTML parser: double-quoted attributes, inputs directly in the form.
 */
export function firstPostForm(html: string): HtmlForm | undefined {
  const form = /<form\b[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const attributes = attributesOf(form[0].slice(0, form[0].indexOf(">") + 1));
  if (attributes.method?.toLowerCase() !== "post" || attributes.action === undefined) return undefined;
  const fields: Record<string, string> = {};
  for (const input of (form[1] ?? "").matchAll(/<input\b[^>]*>/gi)) {
    const field = attributesOf(input[0]);
    if (field.name !== undefined) fields[field.name] = field.value ?? "";
  }
  return { action: attributes.action, fields };
}
