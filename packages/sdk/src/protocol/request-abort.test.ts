import { describe, expect, it } from "vitest";
import { RequestAbort, signalOf } from "./request-abort.js";

describe("RequestAbort", () => {
  it("makes no signal until one is read, and hands out a live one then", () => {
    const abort = new RequestAbort();
    expect(abort.aborted).toBe(false);
    const signal = abort.signal;
    expect(signal.aborted).toBe(false);
    let heard = 0;
    signal.addEventListener("abort", () => heard++);
    abort.abort();
    abort.abort();
    expect(abort.aborted).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(heard).toBe(1);
  });

  it("hands out an already aborted signal, with its reason, when read after the abort", () => {
    const abort = new RequestAbort();
    const reason = new Error("client went away");
    abort.abort(reason);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(reason);
    expect(signalOf(abort)).toBe(abort.signal);
  });

  it("passes a caller's own AbortSignal through", () => {
    const controller = new AbortController();
    expect(signalOf(controller.signal)).toBe(controller.signal);
  });
});
