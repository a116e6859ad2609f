import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { plainStatus, spinnerStatus } from "./status-line.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("status lines", () => {
  it("without a terminal: one plain line per change of text, none for a wait that ends quickly", async () => {
    const written: string[] = [];
    const status = plainStatus((text) => written.push(text));
    status.show("waiting for approval at a.example");
    status.clear();
    status.show("waiting for approval at a.example");
    status.show("waiting for b.example…", 1_000);
    status.clear();
    await vi.advanceTimersByTimeAsync(2_000);
    status.show("a.example is still working…");
    expect(written).toEqual(["waiting for approval at a.example\n", "a.example is still working…\n"]);
  });

  it("on a terminal: a spinner redrawn in place, erased when the wait ends, escaping what it is given", async () => {
    const written: string[] = [];
    const status = spinnerStatus((text) => written.push(text));
    status.show("waiting\x1b]0;t\x07");
    await vi.advanceTimersByTimeAsync(250);
    status.clear();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(written).toEqual([
      "\r\x1b[2K⠋ waiting\\x1b]0;t\\x07",
      "\r\x1b[2K⠙ waiting\\x1b]0;t\\x07",
      "\r\x1b[2K⠹ waiting\\x1b]0;t\\x07",
      "\r\x1b[2K",
    ]);
  });
});
