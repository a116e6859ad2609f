import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MintedTokens } from "./minted-tokens.js";

const NONCE_AT = 4;

/** A raw token whose nonce picks index slot `slot`; the rest of its bytes are random. */
function rawFor(slot: number, length = 64): Buffer {
  const raw = randomBytes(length);
  raw[NONCE_AT] = slot & 0xff;
  raw[NONCE_AT + 1] = slot >> 8;
  return raw;
}

describe("MintedTokens", () => {
  it("recalls a copy of the payload for exactly the bytes remembered", () => {
    const minted = new MintedTokens(NONCE_AT);
    const raw = rawFor(7);
    const payload = Buffer.from("awaiting-confirm");
    minted.remember(raw, payload);
    payload.fill(0);
    const recalled = minted.recall(Buffer.from(raw));
    expect(recalled?.toString()).toBe("awaiting-confirm");
    recalled?.fill(0);
    expect(minted.recall(raw)?.toString()).toBe("awaiting-confirm");
  });

  it("does not recall bytes that differ anywhere, or are shorter or longer", () => {
    const minted = new MintedTokens(NONCE_AT);
    const raw = rawFor(9);
    minted.remember(raw, Buffer.from("p"));
    for (const at of [0, NONCE_AT + 2, raw.length - 1]) {
      const changed = Buffer.from(raw);
      changed[at] = (changed[at] ?? 0) ^ 1;
      expect(minted.recall(changed)).toBeUndefined();
    }
    expect(minted.recall(raw.subarray(0, raw.length - 1))).toBeUndefined();
    expect(minted.recall(Buffer.concat([raw, Buffer.from([0])]))).toBeUndefined();
  });

  it("forgets a token when a newer one takes its slot", () => {
    const minted = new MintedTokens(NONCE_AT);
    const older = rawFor(3);
    const newer = rawFor(3);
    minted.remember(older, Buffer.from("older"));
    minted.remember(newer, Buffer.from("newer"));
    expect(minted.recall(older)).toBeUndefined();
    expect(minted.recall(newer)?.toString()).toBe("newer");
  });

  it("forgets a token once the log has wrapped over its bytes, and keeps the ones written since", () => {
    const minted = new MintedTokens(NONCE_AT);
    const first = rawFor(0, 2000);
    minted.remember(first, Buffer.alloc(2000, 1));
    // 256 KiB of entries in other slots: the log comes round to where the first one lies.
    const later: Buffer[] = [];
    for (let i = 0; i < 70; i++) {
      const raw = rawFor(1 + i, 2000);
      minted.remember(raw, Buffer.alloc(2000, 2));
      later.push(raw);
    }
    expect(minted.recall(first)).toBeUndefined();
    const newest = later.at(-1) as Buffer;
    expect(minted.recall(newest)?.equals(Buffer.alloc(2000, 2))).toBe(true);
  });

  it("recalls an entry until the log has come round to it, and not after", () => {
    const minted = new MintedTokens(NONCE_AT);
    const oldest = rawFor(1);
    minted.remember(oldest, Buffer.alloc(64, 7));
    // 128-byte entries fill the rest of the 256 KiB log exactly: the next write lands on the oldest.
    for (let i = 1; i < 2048; i++) minted.remember(rawFor(1 + i), Buffer.alloc(64));
    expect(minted.recall(oldest)?.equals(Buffer.alloc(64, 7))).toBe(true);
    minted.remember(rawFor(4000), Buffer.alloc(64));
    expect(minted.recall(oldest)).toBeUndefined();
  });

  it("never recalls a token whose bytes a later entry wrote out again, with another payload behind them", () => {
    const minted = new MintedTokens(NONCE_AT);
    minted.remember(rawFor(2), Buffer.alloc(64));
    const victim = rawFor(1);
    minted.remember(victim, Buffer.alloc(64, 1));
    // The victim lies at 128. Entries of 128 bytes fill the log to its end, then one of 64 bytes
    // brings the next to 64, and that one's payload spells the victim's token where it lay, followed
    // by bytes of its own choosing where the victim's payload was.
    for (let i = 0; i < 2046; i++) minted.remember(rawFor(3 + i), Buffer.alloc(64));
    minted.remember(rawFor(4000, 32), Buffer.alloc(32));
    const evil = Buffer.alloc(64, 0xee);
    minted.remember(rawFor(4001), Buffer.concat([victim, evil]));
    expect(minted.recall(victim)).toBeUndefined();
  });

  it("keeps the entry before the log's end when the next one starts over at 0", () => {
    const minted = new MintedTokens(NONCE_AT);
    // 4000-byte entries do not divide 256 KiB: one of them would reach the end, and starts at 0.
    let previous: { raw: Buffer; payload: Buffer } | undefined;
    for (let i = 0; i < 200; i++) {
      const raw = rawFor(i, 2000);
      const payload = Buffer.alloc(2000, i & 0xff);
      minted.remember(raw, payload);
      expect(minted.recall(raw)?.equals(payload)).toBe(true);
      if (previous) expect(minted.recall(previous.raw)?.equals(previous.payload)).toBe(true);
      previous = { raw, payload };
    }
  });

  it("finds nothing in a slot no token was sealed in", () => {
    const minted = new MintedTokens(NONCE_AT);
    minted.remember(rawFor(1), Buffer.from("p"));
    expect(minted.recall(rawFor(2))).toBeUndefined();
  });

  it("remembers a payload of exactly 2 KiB", () => {
    const minted = new MintedTokens(NONCE_AT);
    const raw = rawFor(5);
    minted.remember(raw, Buffer.alloc(2048, 3));
    expect(minted.recall(raw)?.equals(Buffer.alloc(2048, 3))).toBe(true);
  });

  it("does not remember a payload above 2 KiB", () => {
    const minted = new MintedTokens(NONCE_AT);
    const raw = rawFor(5);
    minted.remember(raw, Buffer.alloc(2049));
    expect(minted.recall(raw)).toBeUndefined();
  });
});
