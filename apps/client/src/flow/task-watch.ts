import type { CarrierCallOptions, Client, TaskHandle } from "@roundtrip/sdk/client";
import {
  type GetTaskResult,
  type Implementation,
  isTerminalTaskStatus,
  type McpError,
} from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "../exit-codes.js";
import { PendingStore } from "../pending-store.js";
import type { PendingTasks } from "../pending-tasks.js";
import { onInterrupt } from "../terminal/interrupt-keys.js";
import { askSelect } from "../terminal/prompts.js";
import { safeInline } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";
import { isUnknownTask, unknownSavedTask } from "./unknown-task.js";

export interface TaskWatchOptions {
  terminal: Terminal;
  tasks: PendingTasks;
  server: string;
  serverInfo: () => Implementation | undefined;
  /** --detach: a call the server runs as a task is saved as soon as the task is known. */
  detachAtOnce: boolean;
  /** false for a --stdio server, which ends with this process: its tasks cannot be resumed. */
  canDetach: boolean;
  /** The saved task being resumed: a detach keeps its id, the task's end deletes it. */
  resumed?: { id: string; task: TaskHandle };
}

/** A task the command stopped following: left running and saved, or cancelled at the person's word. */
export type TaskStop =
  | { kind: "detached"; id: string; task: TaskHandle }
  | { kind: "cancelled"; task: TaskHandle };

/** Why the call's signal aborted: the person chose, the task itself goes on or is cancelled after. */
class StopFollowing extends Error {
  readonly choice: "detach" | "cancel";

  constructor(choice: "detach" | "cancel") {
    super(choice === "detach" ? "detached from the task" : "cancelling the task");
    this.choice = choice;
  }
}

type Choice = "detach" | "cancel" | "follow";

/**
 * Follows the task a call turns into, for the person: its status and the server's statusMessage on one
 * line (redrawn on a terminal, a plain line per change otherwise), Ctrl-C asking whether to cancel the
 * task or detach from it (without a terminal, detaching), and --detach saving it as soon as it exists.
 * Its options go with the call; `settle` then says what became of the task.
 */
export class TaskWatch {
  readonly #options: TaskWatchOptions;
  readonly #controller = new AbortController();
  #task: TaskHandle | undefined;
  #stopListening: (() => void) | undefined;
  #deciding: AbortController | undefined;
  /**
   * Open while the person chooses at Ctrl-C, held by the status callback: following (and so any question
   * of the task) waits for the choice, so no prompt opens under it. Rejects when they chose to stop.
   */
  #decision: Promise<void> | undefined;
  #choice: "detach" | "cancel" | undefined;
  #shown: string | undefined;
  #heardLast: GetTaskResult | undefined;

  constructor(options: TaskWatchOptions) {
    this.#options = options;
    this.#task = options.resumed?.task;
  }

  /** The call's options: the task is kept running when the call stops following it. */
  get callOptions(): CarrierCallOptions {
    return {
      signal: this.#controller.signal,
      taskOnAbort: "keep",
      onTask: (task) => this.#started(task),
      onTaskStatus: (task) => this.#heard(task),
    };
  }

  /** Starts listening for Ctrl-C on a task resumed by id, before its first status. */
  resume(): void {
    if (this.#task) this.#show(this.#task);
  }

  /**
   * After the call ended: a task the person detached from is saved; one they chose to cancel is
   * cancelled; one still running after a failure of this side (an unanswered question) is saved, so
   * that it can be resumed. A task that ended is deleted from the saved ones.
   */
  async settle(client: Client, failure: unknown): Promise<TaskStop | undefined> {
    this.#quiet();
    const task = this.#task;
    if (task === undefined) return undefined;
    if (this.#choice === "cancel") return this.#cancel(client, task);
    const ended = isTerminalTaskStatus(task.status);
    if (failure === undefined || ended || !this.#options.canDetach) {
      if (ended) await this.#forget();
      return undefined;
    }
    const unknown = await this.#unknown(client, task, failure);
    if (unknown) {
      const { resumed, tasks, server } = this.#options;
      // Saving it (again) would only keep a task nobody can follow: say so, and which file to drop.
      if (resumed) throw unknownSavedTask(server, resumed.id, tasks.fileOf(resumed.id), unknown);
      return undefined;
    }
    const id = await this.#save(task);
    if (this.#choice === "detach") return { kind: "detached", id, task };
    this.#options.terminal.notice(
      `The task goes on on the server, saved as ${id}: \`roundtrip resume ${id}\` follows it, \`roundtrip cancel ${id}\` stops it.`,
    );
    return undefined;
  }

  /** Cancels the task chosen at Ctrl-C; a cancel that fails leaves it saved, to cancel by its id. */
  async #cancel(client: Client, task: TaskHandle): Promise<TaskStop> {
    try {
      await client.cancelTask(task.taskId);
    } catch (error) {
      // A task its server no longer knows is stopped already; any other failure may leave it running.
      if (!isUnknownTask(error)) {
        if (!this.#options.canDetach) throw error;
        const id = await this.#save(task);
        throw new CliError(
          ExitCode.failure,
          `cancelling the task failed (${error instanceof Error ? error.message : String(error)}); it may still run on the server, saved as ${id}: \`roundtrip cancel ${id}\` stops it`,
          { cause: error },
        );
      }
    }
    await this.#forget();
    return { kind: "cancelled", task };
  }

  /**
   * The failure, when the call failed because the server no longer has the task: -32602 from a tasks
   * method, which tasks/get confirms (an answer refused as invalid gets -32602 too, for a task it still has).
   */
  async #unknown(client: Client, task: TaskHandle, failure: unknown): Promise<McpError | undefined> {
    if (!isUnknownTask(failure)) return undefined;
    try {
      await client.getTask(task.taskId);
      return undefined;
    } catch (error) {
      return isUnknownTask(error) ? failure : undefined;
    }
  }

  async #save(task: TaskHandle): Promise<string> {
    const id = this.#options.resumed?.id ?? PendingStore.newId();
    await this.#options.tasks.save({
      id,
      server: this.#options.server,
      task,
      serverInfo: this.#options.serverInfo(),
    });
    return id;
  }

  #started(task: TaskHandle): void {
    this.#task = task;
    if (this.#options.detachAtOnce && this.#options.canDetach) {
      this.#stop("detach");
      return;
    }
    this.#show(task);
  }

  #heard(state: GetTaskResult): Promise<void> | undefined {
    if (this.#task === undefined) return undefined;
    const { status, statusMessage, lastUpdatedAt, pollIntervalMs } = state;
    const { statusMessage: _old, ...rest } = this.#task;
    this.#task = {
      ...rest,
      status,
      lastUpdatedAt,
      ...(statusMessage === undefined ? {} : { statusMessage }),
      ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
    };
    this.#heardLast = state;
    if (this.#decision) return this.#decision;
    if (this.#choice !== undefined) return undefined;
    this.#react(state);
    return undefined;
  }

  /** The line for the task's latest status: none once it ended, nor while its question is asked. */
  #react(state: GetTaskResult): void {
    if (this.#task === undefined) return;
    const { status } = state;
    if (isTerminalTaskStatus(status)) {
      this.#quiet();
      return;
    }
    // Questions are asked next: the prompt needs the keys, and the line would sit under it.
    if (status === "input_required" && Object.keys(state.inputRequests ?? {}).length > 0) {
      this.#quiet();
      return;
    }
    this.#show(this.#task);
  }

  #show(task: TaskHandle): void {
    const { terminal } = this.#options;
    const message = task.statusMessage ? `: ${safeInline(task.statusMessage)}` : "";
    const hint = !this.#options.canDetach
      ? "Ctrl-C to cancel"
      : terminal.interactive
        ? "Ctrl-C to cancel or detach"
        : "Ctrl-C to detach";
    // Listening before the line says "Ctrl-C": a key pressed on seeing it must be heard.
    this.#stopListening ??= onInterrupt(terminal, () => {
      this.#stopListening = undefined;
      void this.#interrupted();
    });
    const line = `task ${task.status}${message} — ${hint}`;
    // Redrawn only when it changes: each poll would otherwise restart the spinner.
    if (line !== this.#shown) terminal.status.show(line);
    this.#shown = line;
  }

  async #interrupted(): Promise<void> {
    const { terminal, canDetach } = this.#options;
    if (!canDetach) return this.#stop("cancel");
    if (!terminal.interactive) {
      terminal.notice(
        "Ctrl-C, and no terminal to ask whether to cancel: detaching, the task goes on on the server.",
      );
      return this.#stop("detach");
    }
    terminal.status.clear();
    this.#shown = undefined;
    this.#deciding = new AbortController();
    let decide: (stop?: unknown) => void = () => {};
    this.#decision = new Promise<void>((resolve, reject) => {
      decide = (stop) => (stop === undefined ? resolve() : reject(stop));
    });
    // Nobody may be waiting: a choice made while no question is pending is no failure.
    this.#decision.catch(() => {});
    try {
      const choice = await askSelect<Choice>(
        terminal,
        {
          message: "Stop following the task?",
          choices: [
            {
              name: "Detach: it goes on on the server; `roundtrip resume` follows it later",
              value: "detach",
            },
            { name: "Cancel it on the server", value: "cancel" },
            { name: "Keep following it", value: "follow" },
          ],
          default: "detach",
        },
        this.#deciding.signal,
      );
      this.#deciding = undefined;
      if (choice === "follow") {
        if (this.#heardLast) this.#react(this.#heardLast);
        else if (this.#task) this.#show(this.#task);
        return;
      }
      this.#stop(choice);
    } catch {
      // The task ended while the person was choosing, or the prompt itself was interrupted.
      this.#deciding = undefined;
    } finally {
      this.#decision = undefined;
      decide(this.#choice === undefined ? undefined : this.#controller.signal.reason);
    }
  }

  #stop(choice: "detach" | "cancel"): void {
    this.#choice = choice;
    this.#quiet();
    this.#controller.abort(new StopFollowing(choice));
  }

  #quiet(): void {
    this.#stopListening?.();
    this.#stopListening = undefined;
    this.#deciding?.abort();
    this.#options.terminal.status.clear();
    this.#shown = undefined;
  }

  async #forget(): Promise<void> {
    if (this.#options.resumed) await this.#options.tasks.delete(this.#options.resumed.id);
  }
}

/** Ctrl-C cancelled the task: exit as interrupted, saying what was done. */
export function cancelledTask(): CliError {
  return new CliError(ExitCode.interrupted, "you cancelled the task; the server stops it");
}
