import { setTimeout as sleep } from "node:timers/promises";
import { type CallToolResult, elicitForm, inputRequired, type Tool } from "@roundtrip/sdk";
import type { TaskSupport } from "@roundtrip/sdk/protocol";
import type { Complete, Tasks } from "@roundtrip/sdk/server";
import { type FixtureTool, text } from "./catalogue.js";
import { acceptedContent } from "./input-responses.js";
import { askName } from "./questions.js";

/**
 * The tools the tasks extension's scenarios name. Each task-supporting tool runs as a task when the
 * request declares the extension, and directly (or with -32021 when its support is `required`) when
 * it does not.
 */

function definition(
  name: string,
  description: string,
  taskSupport: TaskSupport,
  properties: Record<string, object> = {},
): Tool {
  return { name, description, inputSchema: { type: "object", properties }, execution: { taskSupport } };
}

function numberArg(args: Record<string, unknown> | undefined, name: string): number {
  const value = args?.[name];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

const confirmSchema = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const } },
  required: ["confirm"],
};

export function taskTools(tasks: Tasks): FixtureTool[] {
  const greet: FixtureTool = {
    definition: definition("greet", "Greets by name, directly", "forbidden", { name: { type: "string" } }),
    call: (_ctx, params) => text(`Hello, ${String(params.arguments?.name ?? "World")}!`),
  };

  const slowCompute: FixtureTool = {
    definition: definition(
      "slow_compute",
      "Sleeps `seconds`, then answers; a task when it can be",
      "optional",
      {
        seconds: { type: "number" },
        label: { type: "string" },
      },
    ),
    call: async (ctx, params) => {
      const seconds = numberArg(params.arguments, "seconds");
      const label = String(params.arguments?.label ?? "compute");
      const work = async (signal: AbortSignal): Promise<Complete<CallToolResult>> => {
        await sleep(seconds * 1000, undefined, { signal });
        return text(`${label}: computed after ${seconds}s`);
      };
      if (!tasks.negotiated(ctx)) return work(ctx.signal);
      return tasks.start(ctx, (task) => work(task.signal));
    },
  };

  const failingJob: FixtureTool = {
    definition: definition("failing_job", "A task whose tool reports an error after a second", "required"),
    call: (ctx) =>
      tasks.start(ctx, async (task) => {
        await sleep(1000, undefined, { signal: task.signal });
        return { content: [{ type: "text", text: "the job failed: nothing to process" }], isError: true };
      }),
  };

  const protocolErrorJob: FixtureTool = {
    definition: definition("protocol_error_job", "A task whose handler crashes", "optional"),
    call: (ctx) =>
      tasks.start(ctx, async () => {
        throw new Error("simulated crash inside the task");
      }),
  };

  const confirmDelete: FixtureTool = {
    definition: definition("confirm_delete", "Asks to confirm before deleting a file", "optional", {
      filename: { type: "string" },
    }),
    call: (ctx, params) => {
      const filename = String(params.arguments?.filename ?? "file");
      const question = elicitForm(`Delete ${filename}?`, confirmSchema);
      const outcome = (confirmed: unknown) =>
        text(confirmed === true ? `Deleted ${filename}` : `Kept ${filename}`);
      if (!tasks.negotiated(ctx)) {
        const answer = acceptedContent(params, "confirm");
        return answer ? outcome(answer.confirm) : inputRequired({ inputRequests: { confirm: question } });
      }
      return tasks.start(ctx, async (task) => {
        const answers = await task.input({ confirm: question });
        return outcome(acceptedContent({ inputResponses: answers }, "confirm")?.confirm);
      });
    },
  };

  const multiInput: FixtureTool = {
    definition: definition("multi_input", "Asks two questions at once, in a task", "required"),
    call: (ctx) =>
      tasks.start(ctx, async (task) => {
        const answers = await task.input({
          first: askName("First name?"),
          second: askName("Second name?"),
        });
        const names = ["first", "second"].map(
          (key) => acceptedContent({ inputResponses: answers }, key)?.name,
        );
        return text(`Got ${names.map(String).join(" and ")}`);
      }),
  };

  const toolWithTask: FixtureTool = {
    definition: definition(
      "test_tool_with_task",
      "Asks the user's name directly, then greets them from a task",
      "required",
    ),
    call: (ctx, params) => {
      tasks.requireNegotiated(ctx);
      const name = acceptedContent(params, "user_name")?.name;
      if (typeof name !== "string") return inputRequired({ inputRequests: { user_name: askName() } });
      return tasks.start(ctx, async () => text(`Hello, ${name}!`));
    },
  };

  return [greet, slowCompute, failingJob, protocolErrorJob, confirmDelete, multiInput, toolWithTask];
}
