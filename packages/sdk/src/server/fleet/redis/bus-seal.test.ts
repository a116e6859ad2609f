import { randomBytes } from "node:crypto";
import { AesGcmRequestStateCodec, sealValue } from "@roundtrip/sealing";
import { describe, expect, it } from "vitest";
import type { BusEvent } from "../notification-bus.js";
import { fleetCodec } from "../test-support/fleet-codec.js";
import { BusSeal } from "./bus-seal.js";

const event: BusEvent = {
  type: "answer",
  to: "instance-a",
  session: "session",
  id: "question",
  answer: { result: { action: "accept", content: { confirm: true } } },
};

/** A sender and a receiver on one pinned clock, the fleet's keys unless told otherwise. */
function pair(codec = fleetCodec()) {
  const clock = { ms: 1_800_000_000_000 };
  const now = () => clock.ms;
  return {
    clock,
    sender: new BusSeal({ codec, from: "sender", now }),
    receiver: new BusSeal({ codec: fleetCodec(), from: "receiver", now }),
  };
}

describe("BusSeal", () => {
  it("opens what a holder of the keys sealed, and nothing of it is readable on the wire", () => {
    const { sender, receiver } = pair();
    const sealed = sender.seal(event);
    expect(sealed).not.toContain("confirm");
    expect(receiver.open(sealed)).toEqual({ from: "sender", event });
  });

  it("refuses a message sealed under other keys, and a plain one", () => {
    const { sender, receiver } = pair(new AesGcmRequestStateCodec([randomBytes(32)]));
    expect(receiver.open(sender.seal(event))).toEqual({ refused: "keys", codec: "unknown key" });
    expect(receiver.open(JSON.stringify({ from: "forger", event }))).toEqual({
      refused: "keys",
      codec: "malformed",
    });
  });

  it("refuses a value sealed under the keys for another purpose, and a requestState", () => {
    const { receiver } = pair();
    const bytes = new TextEncoder().encode(JSON.stringify({ from: "forger", seq: 1, at: 0, event }));
    const stored = sealValue(fleetCodec(), bytes, "roundtrip:once:{flow.round}:outcome");
    expect(receiver.open(stored)).toEqual({ refused: "keys", codec: "seal" });
    expect(receiver.open(fleetCodec().seal(bytes))).toEqual({ refused: "keys", codec: "malformed" });
  });

  it("refuses a bus message that opens but is not one", () => {
    const { receiver } = pair();
    const sealed = sealValue(fleetCodec(), new TextEncoder().encode('{"from":"forger"}'), "roundtrip/bus/v1");
    expect(receiver.open(sealed)).toEqual({ refused: "purpose" });
  });

  it("refuses a message heard before, and one older or newer than a minute", () => {
    const { clock, sender, receiver } = pair();
    const first = sender.seal(event);
    const second = sender.seal(event);
    expect(receiver.open(second)).toEqual({ from: "sender", event });
    // Behind a later one from the same sender, or the same one again: a replay.
    expect(receiver.open(first)).toEqual({ refused: "replay" });
    expect(receiver.open(second)).toEqual({ refused: "replay" });
    const old = sender.seal(event);
    clock.ms += 60_001;
    expect(receiver.open(old)).toEqual({ refused: "stale" });
    const ahead = sender.seal(event);
    clock.ms -= 120_002;
    expect(receiver.open(ahead)).toEqual({ refused: "stale" });
  });

  it("refuses a message sent again over a minute later, though its sender's later messages are heard", () => {
    const { clock, sender, receiver } = pair();
    const heard = sender.seal(event);
    expect(receiver.open(heard)).toEqual({ from: "sender", event });
    clock.ms += 60_001;
    expect(receiver.open(sender.seal(event))).toEqual({ from: "sender", event });
    expect(receiver.open(heard)).toEqual({ refused: "stale" });
  });
});
