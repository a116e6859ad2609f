import { describe, expect, it } from "vitest";
import { newFlowId, readTrail, writeTrail } from "./round-trail.js";

describe("the round trail", () => {
  it("reads back what it writes, with and without the span", () => {
    const span = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
    const flowId = newFlowId();
    expect(flowId).toMatch(/^[0-9a-f]{16}$/);
    expect(writeTrail({ flowId, round: 3, span })).toBe(`1.${flowId}.3.${span.traceId}.${span.spanId}.01`);
    expect(readTrail(writeTrail({ flowId, round: 3, span }))).toEqual({ flowId, round: 3, span });
    expect(readTrail(writeTrail({ flowId, round: 1 }))).toEqual({ flowId, round: 1 });
  });

  it("reads none from an older state, another version or a damaged trail", () => {
    for (const text of [
      undefined,
      "",
      "2.0123456789abcdef.1",
      "1.0123456789abcdef.0",
      "1.0123456789ABCDEF.1",
      "1.0123456789abcdef.1.short.00f067aa0ba902b7.01",
      "1.0123456789abcdef.1234567",
    ]) {
      expect(readTrail(text), String(text)).toBeUndefined();
    }
  });
});
