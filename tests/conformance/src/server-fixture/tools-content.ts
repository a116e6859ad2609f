import { type FixtureTool, noArguments, text } from "./catalogue.js";
import { PNG_BASE64, WAV_BASE64 } from "./media.js";

/** Tools that answer with each kind of content block, plus errors and progress. */

const simpleText: FixtureTool = {
  definition: noArguments("test_simple_text", "Returns a short text block"),
  call: () => text("This is a simple text response for testing."),
};

const image: FixtureTool = {
  definition: noArguments("test_image_content", "Returns a 1x1 PNG image"),
  call: () => ({ content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }] }),
};

const audio: FixtureTool = {
  definition: noArguments("test_audio_content", "Returns a short WAV clip"),
  call: () => ({ content: [{ type: "audio", data: WAV_BASE64, mimeType: "audio/wav" }] }),
};

const embeddedResource: FixtureTool = {
  definition: noArguments("test_embedded_resource", "Returns an embedded text resource"),
  call: () => ({
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  }),
};

const mixed: FixtureTool = {
  definition: noArguments("test_multiple_content_types", "Returns text, an image and a resource together"),
  call: () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG_BASE64, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }),
};

const failing: FixtureTool = {
  definition: noArguments("test_error_handling", "Always fails, to show how a tool reports errors"),
  call: () => {
    // Thrown on purpose: the SDK turns a tool's failure into an isError result the model can read.
    throw new Error("This tool intentionally returns an error for testing");
  },
};

const progress: FixtureTool = {
  definition: noArguments("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100"),
  call: async (ctx) => {
    for (const step of [0, 50, 100]) await ctx.sendProgress(step, 100, `step ${step}`);
    return text("Progress reported in three steps.");
  },
};

const logging: FixtureTool = {
  definition: noArguments("test_tool_with_logging", "Logs three messages at info level while it runs"),
  call: async (ctx) => {
    for (const data of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
      await ctx.log("info", data);
    }
    return text("Logged three messages.");
  },
};

export const contentTools: readonly FixtureTool[] = [
  simpleText,
  image,
  audio,
  embeddedResource,
  mixed,
  failing,
  progress,
  logging,
];
