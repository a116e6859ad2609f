import { inputRequired, McpError } from "@roundtrip/sdk";
import type { GetPromptParams } from "@roundtrip/sdk/protocol";
import type { FixturePrompt } from "./catalogue.js";
import { acceptedContent } from "./input-responses.js";
import { PNG_BASE64 } from "./media.js";
import { askPromptContext } from "./questions.js";

function requiredArgument(params: GetPromptParams, name: string): string {
  const value = params.arguments?.[name];
  if (value === undefined) {
    throw McpError.invalidParams(`Prompt ${params.name} needs the argument "${name}"`);
  }
  return value;
}

const simple: FixturePrompt = {
  definition: { name: "test_simple_prompt", description: "A prompt without arguments" },
  get: () => ({
    messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
  }),
};

const withArguments: FixturePrompt = {
  definition: {
    name: "test_prompt_with_arguments",
    description: "A prompt that quotes its two arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  get: (_ctx, params) => {
    const arg1 = requiredArgument(params, "arg1");
    const arg2 = requiredArgument(params, "arg2");
    return {
      messages: [
        {
          role: "user",
          content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    };
  },
};

const withEmbeddedResource: FixturePrompt = {
  definition: {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt that embeds the resource it is given",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  get: (_ctx, params) => ({
    messages: [
      {
        role: "user",
        content: {
          type: "resource",
          resource: {
            uri: requiredArgument(params, "resourceUri"),
            mimeType: "text/plain",
            text: "Embedded resource content for testing.",
          },
        },
      },
      { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
    ],
  }),
};

const withImage: FixturePrompt = {
  definition: { name: "test_prompt_with_image", description: "A prompt that shows an image" },
  get: () => ({
    messages: [
      { role: "user", content: { type: "image", data: PNG_BASE64, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  }),
};

const needsContext: FixturePrompt = {
  definition: {
    name: "test_input_required_result_prompt",
    description: "Asks the user for context before it renders",
  },
  get: (_ctx, params) => {
    const context = acceptedContent(params, "user_context")?.context;
    if (typeof context !== "string")
      return inputRequired({ inputRequests: { user_context: askPromptContext() } });
    return {
      description: "A prompt rendered with the user's context",
      messages: [
        { role: "user", content: { type: "text", text: `Answer with this context in mind: ${context}` } },
      ],
    };
  },
};

export const fixturePrompts: readonly FixturePrompt[] = [
  simple,
  withArguments,
  withEmbeddedResource,
  withImage,
  needsContext,
];
