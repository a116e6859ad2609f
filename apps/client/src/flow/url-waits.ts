import type { InputRequest, InputResponses } from "@roundtrip/sdk/protocol";
import { onInterrupt } from "../terminal/interrupt-keys.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";

/** A person takes seconds to finish a page: polls start at this and double up to MAX_POLL_MS. */
export const FIRST_POLL_MS = 1_000;
export const MAX_POLL_MS = 10_000;
/** After this long without the page being done, the flow is saved rather than polled for ever. */
export const MAX_WAIT_MS = 15 * 60_000;

/** What a round that only waits for consented pages needs: whom to name, and the answers to repeat. */
export interface UrlWait {
  /** The keys of the consented URL questions: what a detached flow waits for. */
  keys: string[];
  /** The URL questions themselves, so that a detach can say which page to finish. */
  requests: Record<string, InputRequest>;
  /** The consent again, for a round that asks the same URL once more; none for a state-only round. */
  responses?: InputResponses;
}

export type WaitOutcome = "poll" | "detach";

function urlOf(request: InputRequest): string | undefined {
  if (request.method !== "elicitation/create" || request.params.mode !== "url") return undefined;
  try {
    return new URL(request.params.url).href;
  } catch {
    return undefined;
  }
}

/**
 * The URLs the person agreed to open in this run. Once they have, the server's next rounds (state-only
 * rounds, or the same URL asked again) wait for the page, not for the person: the same question is not
 * asked again, and the server is polled at a person's pace, with Ctrl-C saving the flow to resume.
 */
export class UrlWaits {
  readonly #consented = new Map<string, { key: string; request: InputRequest }>();
  readonly #terminal: Terminal;
  #delay = FIRST_POLL_MS;
  #waited = 0;

  constructor(terminal: Terminal) {
    this.#terminal = terminal;
  }

  /** Keeps the URLs a round's answers consented to. */
  remember(requests: Readonly<Record<string, InputRequest>>, responses: InputResponses): void {
    for (const [key, request] of Object.entries(requests)) {
      const url = urlOf(request);
      const response = responses[key] as { action?: string } | undefined;
      if (url !== undefined && response?.action === "accept") this.#consented.set(url, { key, request });
    }
  }

  /** The consent already given for each URL of `requests` that was consented to before. */
  known(requests: Readonly<Record<string, InputRequest>>): InputResponses {
    const known: InputResponses = {};
    for (const [key, request] of Object.entries(requests)) {
      const url = urlOf(request);
      if (url !== undefined && this.#consented.has(url)) known[key] = { action: "accept" };
    }
    return known;
  }

  /**
   * The wait a round is, if it is one: a state-only round after a consent, or a round that asks nothing
   * but consented URLs. Any other round needs answers and resets the pace.
   */
  waitOf(requests: Readonly<Record<string, InputRequest>>): UrlWait | undefined {
    const keys = Object.keys(requests);
    const known = this.known(requests);
    const consented = [...this.#consented.values()];
    if (consented.length === 0 || Object.keys(known).length !== keys.length) {
      if (keys.length > 0) this.#moveOn(requests);
      return undefined;
    }
    return {
      keys: keys.length > 0 ? keys : consented.map((c) => c.key),
      requests: Object.fromEntries(consented.map((c) => [c.key, c.request])),
      ...(keys.length > 0 ? { responses: known } : {}),
    };
  }

  /**
   * Waits before the next poll, showing what for. Resolves to "detach" on Ctrl-C, or once the page has
   * been waited on for MAX_WAIT_MS, so that the flow is saved instead of abandoned.
   */
  async pause(): Promise<WaitOutcome> {
    if (this.#waited >= MAX_WAIT_MS) return "detach";
    const hosts = [...new Set([...this.#consented.keys()].map((url) => new URL(url).host))];
    const delay = this.#delay;
    this.#delay = Math.min(this.#delay * 2, MAX_POLL_MS);
    this.#waited += delay;
    const outcome = await new Promise<WaitOutcome>((resolve) => {
      // Listening before the status says "Ctrl-C to detach": a key pressed on seeing it must detach.
      const stopInterrupts = onInterrupt(this.#terminal, () => {
        clearTimeout(timer);
        resolve("detach");
      });
      const timer = setTimeout(() => {
        stopInterrupts();
        resolve("poll");
      }, delay);
      this.#terminal.status.show(
        `waiting for approval at ${safeInline(hosts.join(", "))} — Ctrl-C to detach`,
      );
    });
    this.#terminal.status.clear();
    return outcome;
  }

  /** A round with new questions: the flow is past the pages it does not ask again. */
  #moveOn(requests: Readonly<Record<string, InputRequest>>): void {
    const still = new Set(Object.values(requests).map(urlOf));
    for (const url of this.#consented.keys()) if (!still.has(url)) this.#consented.delete(url);
    this.#delay = FIRST_POLL_MS;
    this.#waited = 0;
  }
}
