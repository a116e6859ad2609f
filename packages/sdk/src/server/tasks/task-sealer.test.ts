import { randomBytes } from "node:crypto";
import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import { describe, expect, it } from "vitest";
import { fleetCodec } from "../fleet/test-support/fleet-codec.js";
import { TaskSealer } from "./task-sealer.js";

const value = { answer: "the launch code" };

describe("TaskSealer", () => {
  const sealers: [string, () => { key?: Uint8Array; codec?: AesGcmRequestStateCodec }][] = [
    ["a 32-byte key", () => ({ key: randomBytes(32) })],
    ["the request-state keys", () => ({ codec: fleetCodec() })],
  ];
  it.each(sealers)("with %s: opens for the task it sealed for only, and shows nothing", (_name, keys) => {
    const { key, codec } = keys();
    const sealed = new TaskSealer(key, codec).seal("task-a", value);
    expect(Buffer.from(sealed).toString("utf8")).not.toContain("launch");
    expect(new TaskSealer(key, codec ? fleetCodec() : undefined).open("task-a", sealed)).toEqual(value);
    expect(() => new TaskSealer(key, codec).open("task-b", sealed)).toThrow();
  });

  it("refuses what other keys sealed, and a key and a codec together", () => {
    const sealed = new TaskSealer(undefined, fleetCodec()).seal("task-a", value);
    const other = new TaskSealer(undefined, new AesGcmRequestStateCodec([randomBytes(32)]));
    expect(() => other.open("task-a", sealed)).toThrow();
    expect(() => new TaskSealer(randomBytes(32), fleetCodec())).toThrow(/a key or with a codec, not both/);
  });
});
