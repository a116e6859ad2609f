import { CLIENT_REQUESTS, type ClientRequestMethod, methodFacts, methodsWhere } from "./methods.js";

/**
 * The methods that may answer with an InputRequiredResult and be retried with `inputResponses` and
 * `requestState`: the "carriers" of multi round-trip requests, as the method table marks them.
 */
export type CarrierMethod = {
  [M in ClientRequestMethod]: (typeof CLIENT_REQUESTS)[M]["carrier"] extends null ? never : M;
}[ClientRequestMethod];

/** The carrier methods in the table's order (tools/call, prompts/get, resources/read). */
export const CARRIER_METHODS: readonly CarrierMethod[] = Object.freeze(
  methodsWhere((facts) => facts.carrier !== null) as CarrierMethod[],
);

export function isCarrierMethod(method: string): method is CarrierMethod {
  return methodFacts(method)?.carrier != null;
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
  const value = params?.[carrierTargetField(method)];
  return typeof value === "string" ? value : undefined;
}

/** The params field `carrierTarget` reads, for messages that name it. */
export function carrierTargetField(method: CarrierMethod): "uri" | "name" {
  return CLIENT_REQUESTS[method].carrier.target;
}
