import { elicitForm, elicitUrl } from "@roundtrip/sdk";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Terminal } from "../terminal.js";
import { FIRST_POLL_MS, MAX_POLL_MS, UrlWaits } from "./url-waits.js";

const shown: string[] = [];
/** A terminal that is not one: what the waits show is recorded, and no key can be pressed. */
const terminal = {
  interactive: false,
  colors: false,
  verbose: false,
  notice: () => {},
  status: { show: (text: string) => shown.push(text), clear: () => {} },
  strong: (text: string) => text,
  dim: (text: string) => text,
  reset: () => "",
  output: process.stderr,
  input: process.stdin,
} satisfies Terminal;

const page = { approval: elicitUrl("Approve", "https://approve.example/r/1") };
const form = { name: elicitForm("Name?", { type: "object", properties: { name: { type: "string" } } }) };

/** How long one pause takes on the fake clock, to the millisecond. */
async function pauseLength(waits: UrlWaits): Promise<number> {
  let done = false;
  const pause = waits.pause().then((outcome) => {
    done = true;
    return outcome;
  });
  let elapsed = 0;
  while (!done) {
    await vi.advanceTimersByTimeAsync(1);
    elapsed += 1;
  }
  expect(await pause).toBe("poll");
  return elapsed;
}

beforeEach(() => {
  vi.useFakeTimers();
  shown.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

describe("waiting for a consented page", () => {
  it("is no wait before a consent, and the same URL asked again is answered with the consent", () => {
    const waits = new UrlWaits(terminal);
    expect(waits.waitOf({})).toBeUndefined();
    expect(waits.waitOf(page)).toBeUndefined();
    waits.remember(page, { approval: { action: "accept" } });
    expect(waits.waitOf({})).toEqual({ keys: ["approval"], requests: page });
    expect(waits.waitOf(page)).toEqual({
      keys: ["approval"],
      requests: page,
      responses: { approval: { action: "accept" } },
    });
  });

  it("polls at a person's pace, doubling up to the maximum, and starts over after a new question", async () => {
    const waits = new UrlWaits(terminal);
    waits.remember(page, { approval: { action: "accept" } });
    const lengths: number[] = [];
    for (let i = 0; i < 6; i++) lengths.push(await pauseLength(waits));
    expect(lengths).toEqual([FIRST_POLL_MS, 2_000, 4_000, 8_000, MAX_POLL_MS, MAX_POLL_MS]);
    expect(shown.at(-1)).toBe("waiting for approval at approve.example — Ctrl-C to detach");

    // A round with a new question is not a wait, and the page it no longer asks is forgotten.
    expect(waits.waitOf(form)).toBeUndefined();
    expect(waits.waitOf({})).toBeUndefined();
    waits.remember(page, { approval: { action: "accept" } });
    expect(await pauseLength(waits)).toBe(FIRST_POLL_MS);
  });

  it("a declined page is not waited for", () => {
    const waits = new UrlWaits(terminal);
    waits.remember(page, { approval: { action: "decline" } });
    expect(waits.waitOf({})).toBeUndefined();
  });
});
