import { describe, expect, it } from "vitest";
import {
  ALL_PROTOCOL_VERSIONS,
  ERAS,
  eraOfVersion,
  isLegacyProtocolVersion,
  requiresVersionHeader,
} from "./eras.js";

describe("the protocol eras", () => {
  it("place every version this SDK speaks in exactly one era, the newest first", () => {
    expect(ERAS.modern.versions[0]).toBe(ERAS.modern.latest);
    expect(ERAS.legacy.versions[0]).toBe(ERAS.legacy.latest);
    expect(ALL_PROTOCOL_VERSIONS).toEqual([...ERAS.modern.versions, ...ERAS.legacy.versions]);
    for (const version of ERAS.modern.versions) expect(eraOfVersion(version)).toBe("modern");
    for (const version of ERAS.legacy.versions) expect(eraOfVersion(version)).toBe("legacy");
    expect(new Set(ALL_PROTOCOL_VERSIONS).size).toBe(ALL_PROTOCOL_VERSIONS.length);
  });

  it("know no era for what is not a version they speak", () => {
    for (const value of ["2024-11-05", "", "2026-07-28 ", 20260728, undefined, null]) {
      expect(eraOfVersion(value)).toBeUndefined();
      expect(isLegacyProtocolVersion(value)).toBe(false);
    }
    expect(isLegacyProtocolVersion("2025-11-25")).toBe(true);
    expect(isLegacyProtocolVersion("2026-07-28")).toBe(false);
  });

  it("ask for the version header on every version but the one that predates it", () => {
    expect(requiresVersionHeader("2026-07-28")).toBe(true);
    expect(requiresVersionHeader("2025-11-25")).toBe(true);
    expect(requiresVersionHeader("2025-06-18")).toBe(true);
    expect(requiresVersionHeader("2025-03-26")).toBe(false);
  });
});
