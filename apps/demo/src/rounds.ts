// The server's side of the rounds, for the steps: the rounds themselves are the CLI's -v lines; this
// keeps what the steps check against (each step's last result) and notices the deploy's approval URL.
import type { AliceBrowser } from "./alice.js";
import { note } from "./narration.js";
import type { Round } from "./stack.js";

export interface RoundWatch {
  /** Given every round the reference server answers, as it answers it. */
  seen(round: Round): void;
  /** A step starts: the last result is that step's own from now on. */
  nextStep(): void;
  /** The outcome of the step's last round, as the server sent it. */
  lastResult(): string;
  /** The approval URL the server asked the deploy's requester to open, once it has. */
  approvalUrl(): string | undefined;
  /** Forgets the approval of an earlier deploy. */
  forgetApproval(): void;
  /**
   * Interactive only: the approval alice's browser started as soon as the URL was handed out, with
   * the lines it held back while the CLI owned the terminal; undefined when none started.
   */
  backgroundApproval(): Promise<{ error: unknown; held: readonly string[] }> | undefined;
}

export function watchRounds({
  interactive,
  alice,
}: {
  interactive: boolean;
  alice: AliceBrowser;
}): RoundWatch {
  let last: Round | undefined;
  let url: string | undefined;
  /** Resolves to the approval's error, or to undefined when it succeeded. */
  let background: Promise<unknown> | undefined;
  const held: string[] = [];
  return {
    seen(round) {
      last = round;
      const asked = round.asks.find((ask) => ask.key === "approval" && ask.url)?.url;
      if (asked === undefined) return;
      url = asked;
      if (interactive && background === undefined) {
        // Written before the answer leaves the server, so it lands above the CLI's prompt, not inside it.
        note("alice's browser opens that page now and approves it (its lines follow once the CLI is done)");
        background = alice
          .approve(asked, (line) => held.push(line))
          .then(
            () => undefined,
            (error: unknown) => error,
          );
      }
    },
    nextStep() {
      last = undefined;
    },
    lastResult: () => last?.resultText ?? "",
    approvalUrl: () => url,
    forgetApproval() {
      url = undefined;
      background = undefined;
      held.length = 0;
    },
    backgroundApproval: () => background?.then((error) => ({ error, held })),
  };
}
