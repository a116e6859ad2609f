import type { SamplingSettings } from "../../config/settings.js";
import type { Terminal } from "../../terminal.js";
import { anthropicProvider } from "./anthropic.js";
import { humanProvider } from "./human.js";
import { openAiCompatibleProvider } from "./openai-compatible.js";
import type { SamplingProvider } from "./sampling-provider.js";

export function samplingProvider(
  settings: SamplingSettings,
  terminal: Terminal,
  env = process.env,
): SamplingProvider {
  const common = {
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    ...(settings.model ? { model: settings.model } : {}),
    ...(settings.apiKeyEnv ? { apiKeyEnv: settings.apiKeyEnv } : {}),
    env,
  };
  switch (settings.provider) {
    case "human":
      return humanProvider(terminal);
    case "openai":
      return openAiCompatibleProvider(common);
    case "anthropic":
      return anthropicProvider(common);
  }
}
