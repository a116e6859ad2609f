import { McpError } from "@roundtrip/sdk";
import type { Logger } from "@roundtrip/sdk/protocol";
import { requestStateBoundary, Server, Tasks } from "@roundtrip/sdk/server";
import { RequestStateSecurity } from "@roundtrip/sealing";
import type { FixturePrompt, FixtureTool } from "./catalogue.js";
import { completeArgument } from "./completion.js";
import { fixturePrompts } from "./prompts.js";
import { readFixtureResource, resourceListing, resourceTemplates } from "./resources.js";
import { fixtureSkills } from "./skills.js";
import { askingTools } from "./tools-asking.js";
import { contentTools } from "./tools-content.js";
import { diagnosticTools } from "./tools-diagnostics.js";
import { inputRequiredTools } from "./tools-input-required.js";
import { schemaTools } from "./tools-schema.js";
import { taskTools } from "./tools-tasks.js";

export interface FixtureOptions {
  logger?: Logger;
}

function byName<T extends { definition: { name: string } }>(entries: readonly T[]): Map<string, T> {
  return new Map(entries.map((entry) => [entry.definition.name, entry]));
}

/**
 * Every tool, prompt and resource the 2026-07-28 server scenarios of the official conformance suite
 * name, served by the SDK's low-level Server. Lists keep a fixed order so repeated listings agree.
 */
export function createFixtureServer(options: FixtureOptions = {}): Server {
  // Short polls: the scenarios wait for each task, and nothing here is slow to read.
  const tasks = new Tasks({ pollIntervalMs: 100, ...(options.logger ? { logger: options.logger } : {}) });
  const server = new Server(
    { name: "roundtrip-conformance-fixture", version: "0.1.0" },
    {
      instructions: "Test fixture for the MCP conformance suite; every tool is a probe, not a product.",
      ...(options.logger ? { logger: options.logger } : {}),
      tasks,
    },
  );
  const tools: readonly FixtureTool[] = [
    ...contentTools,
    ...inputRequiredTools,
    ...askingTools,
    ...diagnosticTools({
      toolsChanged: () => server.notifyToolsListChanged(),
      promptsChanged: () => server.notifyPromptsListChanged(),
    }),
    ...schemaTools,
    ...taskTools(tasks),
  ];
  const toolsByName = byName(tools);
  const promptsByName = byName<FixturePrompt>(fixturePrompts);
  const skills = fixtureSkills();

  // The SDK's boundary seals every outbound requestState (AES-256-GCM under a key of this process,
  // bound to the request and the server name) and refuses anything else with the frozen error.
  server.use(
    requestStateBoundary(RequestStateSecurity.ephemeral(), {
      defaultAudience: server.name,
      logger: server.logger,
    }),
  );
  server
    .onListTools(() => ({ tools: tools.map((tool) => tool.definition) }))
    .onCallTool((ctx, params) => {
      const tool = toolsByName.get(params.name);
      if (!tool) throw McpError.invalidParams(`Unknown tool: ${params.name}`);
      return tool.call(ctx, params);
    })
    .onListPrompts(() => ({ prompts: fixturePrompts.map((prompt) => prompt.definition) }))
    .onGetPrompt((ctx, params) => {
      const prompt = promptsByName.get(params.name);
      if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${params.name}`);
      return prompt.get(ctx, params);
    })
    .onListResources(() => ({ resources: [...resourceListing, ...skills.resources()] }))
    .onListResourceTemplates(() => ({ resourceTemplates: [...resourceTemplates] }))
    .onReadResource((_ctx, params) =>
      skills.file(params.uri) ? skills.read(params.uri) : { contents: readFixtureResource(params.uri) },
    )
    .onComplete((_ctx, params) => completeArgument(params))
    .onListSkills((_ctx, params) => skills.list(params.cursor))
    .onGetSkill((_ctx, params) => skills.get(params.uri))
    .onReadResourceDirectory((_ctx, params) => skills.directory(params.uri, params.cursor));
  return server;
}
