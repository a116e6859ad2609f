/**
 * The three methods that may answer with an InputRequiredResult and be retried with `inputResponses`
 * and `requestState`: the "carriers" of multi round-trip requests.
 */
export const CARRIER_METHODS = ["tools/call", "prompts/get", "resources/read"] as const;

export type CarrierMethod = (typeof CARRIER_METHODS)[number];

const CARRIERS: ReadonlySet<string> = new Set(CARRIER_METHODS);

export function isCarrierMethod(method: string): method is CarrierMethod {
  return CARRIERS.has(method);
}

/**
 * What a carrier request addresses: the tool or prompt name, or the resource URI. Sealed request state
 * is bound to it and the `Mcp-Name` header must equal it, so both (and the client that sets the header)
 * read it here; undefined when the method is no carrier or the field is not a string.
 */
export function carrierTarget(
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  if (!isCarrierMethod(method)) return undefined;
  const value = method === "resources/read" ? params?.uri : params?.name;
  return typeof value === "string" ? value : undefined;
}

/** The params field `carrierTarget` reads, for messages that name it. */
export function carrierTargetField(method: CarrierMethod): "uri" | "name" {
  return method === "resources/read" ? "uri" : "name";
}
