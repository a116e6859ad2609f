import type { CallToolResult, GetPromptResult, InputRequiredResult, Tool } from "@roundtrip/sdk";
import type { CallToolParams, CreateTaskResult, GetPromptParams, Prompt } from "@roundtrip/sdk/protocol";
import type { Complete, RequestContext } from "@roundtrip/sdk/server";

type Awaitable<T> = T | Promise<T>;

/** One tool of the fixture: what tools/list shows and what tools/call runs. */
export interface FixtureTool {
  definition: Tool;
  call(
    ctx: RequestContext,
    params: CallToolParams,
  ): Awaitable<Complete<CallToolResult> | InputRequiredResult | CreateTaskResult>;
}

/** One prompt of the fixture: what prompts/list shows and what prompts/get returns. */
export interface FixturePrompt {
  definition: Prompt;
  get(
    ctx: RequestContext,
    params: GetPromptParams,
  ): Awaitable<Complete<GetPromptResult> | InputRequiredResult>;
}

/** Hooks the diagnostic tools use to change what the server announces. */
export interface ListChangeHooks {
  toolsChanged(): void;
  promptsChanged(): void;
}

/** A tool whose input schema takes no arguments. */
export function noArguments(name: string, description: string): Tool {
  return { name, description, inputSchema: { type: "object", properties: {} } };
}

export function text(value: string): Complete<CallToolResult> {
  return { content: [{ type: "text", text: value }] };
}
