/**
 * Reading a retry's `inputResponses`. Responses are bare results whose kind is known only from the
 * question asked under the same key, and the client may send anything, so each reader checks the
 * shape it expects and treats everything else as "not answered".
 */

export interface Retry {
  inputResponses?: Record<string, unknown> | undefined;
  requestState?: string | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function responseAt(retry: Retry, key: string): Record<string, unknown> | undefined {
  const value = retry.inputResponses?.[key];
  return isObject(value) ? value : undefined;
}

/** The form content of an accepted elicitation; undefined when missing, declined or cancelled. */
export function acceptedContent(retry: Retry, key: string): Record<string, unknown> | undefined {
  const response = responseAt(retry, key);
  if (response?.action !== "accept") return undefined;
  return isObject(response.content) ? response.content : {};
}

/** The text a sampling response carries, when it carries any. */
export function samplingText(retry: Retry, key: string): string | undefined {
  const response = responseAt(retry, key);
  if (response === undefined || typeof response.model !== "string") return undefined;
  const blocks = Array.isArray(response.content) ? response.content : [response.content];
  const texts = blocks
    .filter(isObject)
    .flatMap((block) => (typeof block.text === "string" ? [block.text] : []));
  return texts.length > 0 ? texts.join("\n") : undefined;
}

/** The root URIs of a roots/list response. */
export function rootUris(retry: Retry, key: string): string[] | undefined {
  const roots = responseAt(retry, key)?.roots;
  if (!Array.isArray(roots)) return undefined;
  return roots.filter(isObject).flatMap((root) => (typeof root.uri === "string" ? [root.uri] : []));
}

/** The plain state a sealed requestState carried, parsed as the JSON object the fixture minted. */
export function stateOf(retry: Retry): Record<string, unknown> | undefined {
  if (retry.requestState === undefined) return undefined;
  const parsed: unknown = JSON.parse(retry.requestState);
  return isObject(parsed) ? parsed : undefined;
}
