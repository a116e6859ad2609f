import type { CarrierMethod, InputRequest, InputRequiredResult } from "@roundtrip/sdk/protocol";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";

/** A round that answers within this long shows no status at all. */
const SLOW_ROUND_MS = 1_000;

function asked(key: string, request: InputRequest): string {
  const name = safeInline(key);
  if (request.method === "elicitation/create") {
    const { params } = request;
    return params.mode === "url"
      ? `${name} (URL ${safeInline(params.url)})`
      : `${name} (form: "${safeInline(params.message)}")`;
  }
  return `${name} (${request.method === "sampling/createMessage" ? "sampling" : "roots"})`;
}

/**
 * What the person sees of the rounds themselves: while a request is out, a status once it is slow; with
 * -v, one line per round in the form `⇄ round 2: tools/call deploy answering confirm (+requestState) →
 * asks for approval (URL https://example.com/approve)`. Keys are shown, answers never.
 */
export class RoundProgress {
  readonly #terminal: Terminal;
  readonly #call: string;
  readonly #host: string;
  #answered: string[] = [];
  #withState = false;
  #round = 1;

  constructor(terminal: Terminal, call: { method: CarrierMethod; target: string }, serverUrl: string) {
    this.#terminal = terminal;
    this.#call = `${call.method} ${safeInline(call.target)}`;
    this.#host = new URL(serverUrl).host;
  }

  /**
   * A request is on its way: answering `answered`, echoing requestState or not. A retry of a state-only
   * round waits on the server's own work, which is said at once; any other request only once it is slow.
   */
  sent(answered: readonly string[], withState: boolean, stateOnly = false): void {
    this.#answered = [...answered];
    this.#withState = withState;
    if (stateOnly) this.#terminal.status.show(`${this.#host} is still working…`);
    else this.#terminal.status.show(`waiting for ${this.#host}…`, SLOW_ROUND_MS);
  }

  /** The server answered with round `round` of the call; a `saved` one was received by an earlier run. */
  received(round: number, result: InputRequiredResult, saved = false): void {
    this.#round = round + 1;
    const requests = Object.entries(result.inputRequests ?? {});
    this.#line(
      saved ? `${round}, saved` : `${round}`,
      requests.length > 0
        ? `asks for ${requests.map(([key, request]) => asked(key, request)).join(", ")}`
        : "state only, nothing to answer: the server is still working",
    );
  }

  /** The server answered with the complete result. */
  completed(isError: boolean): void {
    this.#line(`${this.#round}`, isError ? "an error result" : "the result");
  }

  done(): void {
    this.#terminal.status.clear();
  }

  #line(round: string, outcome: string): void {
    this.#terminal.status.clear();
    if (!this.#terminal.verbose) return;
    const answering =
      this.#answered.length > 0 ? ` answering ${this.#answered.map(safeInline).join(", ")}` : "";
    const state = this.#withState ? " (+requestState)" : "";
    this.#terminal.notice(
      this.#terminal.dim(`⇄ round ${round}: ${this.#call}${answering}${state} → ${outcome}`),
    );
  }
}
