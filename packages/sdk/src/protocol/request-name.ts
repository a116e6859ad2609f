import { carrierTarget } from "./carriers.js";
import { EXTENSION_REQUESTS, isExtensionRequestMethod } from "./methods.js";

/**
 * What the `Mcp-Name` header of a request repeats: a carrier's tool, prompt or URI, or the params field
 * an extension's method is routed by (a task's id); undefined for the other requests.
 */
export function requestName(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (!isExtensionRequestMethod(method)) return carrierTarget(method, params);
  const value = params?.[EXTENSION_REQUESTS[method].routedBy];
  return typeof value === "string" ? value : undefined;
}
