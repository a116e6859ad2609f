import { describe, expect, it } from "vitest";
import { type Envelope, envelopeMeta, sessionMeta } from "./envelope.js";

const envelope: Envelope = {
  extra: undefined,
  progressToken: undefined,
  protocolVersion: "2026-07-28",
  capabilities: { roots: {} },
  clientInfo: { name: "c", version: "1" },
  logLevel: undefined,
};

describe("envelopeMeta", () => {
  it("names the version, capabilities and client on every request", () => {
    expect(envelopeMeta(envelope)).toEqual({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { roots: {} },
      "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
    });
  });

  it("adds the log level, the progress token and the caller's keys, which cannot override the envelope", () => {
    const meta = envelopeMeta({
      ...envelope,
      extra: { trace: "t", "io.modelcontextprotocol/protocolVersion": "x" },
      progressToken: "p",
      logLevel: "debug",
    });
    expect(meta).toMatchObject({
      trace: "t",
      progressToken: "p",
      "io.modelcontextprotocol/logLevel": "debug",
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    });
  });
});

describe("sessionMeta", () => {
  it("is absent when there is neither a progress token nor a key of the caller's", () => {
    expect(sessionMeta(envelope)).toBeUndefined();
  });

  it("carries only the progress token and the caller's keys", () => {
    expect(sessionMeta({ ...envelope, extra: { trace: "t" }, progressToken: "p" })).toEqual({
      trace: "t",
      progressToken: "p",
    });
  });
});
