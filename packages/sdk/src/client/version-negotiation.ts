import { SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/versions.js";

/** The newest version this client speaks that the server offers, if any. */
export function mutualVersion(offered: readonly string[]): string | undefined {
  return SUPPORTED_PROTOCOL_VERSIONS.find((version) => offered.includes(version));
}

/** The versions a -32022 error says the server supports (its `data.supported`). */
export function supportedVersionsOf(errorData: unknown): string[] {
  const supported = (errorData as { supported?: unknown } | undefined)?.supported;
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === "string") : [];
}
