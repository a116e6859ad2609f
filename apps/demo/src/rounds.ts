// The server's side of the rounds, for the steps: the rounds themselves are the CLI's -v lines; this
// keeps what the steps check against (each step's last result) and notices the deploy's approval URL.
import type { AliceBrowser } from "./alice.js";
import { DemoFailure } from "./failures.js";
import { note } from "./narration.js";
import type { Ask, Round } from "./stack.js";

/** The deploy's approval question: `approval`, or in a task the same key numbered by its round. */
const APPROVAL_KEY = /^approval(#\d+)?$/;

export interface RoundWatch {
  /** Given every round the reference server answers, as it answers it. */
  seen(round: Round): void;
  /** Given what a task asks, each time its client hears it from tasks/get. */
  taskAsked(asks: readonly Ask[]): void;
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
  const noticeApproval = (asks: readonly Ask[]) => {
    const asked = asks.find((ask) => APPROVAL_KEY.test(ask.key) && ask.url)?.url;
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
  };
  return {
    seen(round) {
      last = round;
      noticeApproval(round.asks);
    },
    taskAsked: noticeApproval,
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

/**
 * On a terminal, alice's approval ran in the background while the CLI had the screen: its lines, held
 * until now, and its failure, which fails the step.
 */
export async function showBackgroundApproval(rounds: RoundWatch): Promise<void> {
  const background = await rounds.backgroundApproval();
  if (background === undefined) return;
  if (background.held.length > 0) note("meanwhile, in alice's browser:");
  for (const line of background.held) note(`  ${line}`);
  if (background.error instanceof Error) {
    throw new DemoFailure(`approving as alice failed: ${background.error.message}`);
  }
}
