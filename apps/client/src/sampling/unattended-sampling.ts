import type { SamplingSettings } from "../config/settings.js";
import { CliError, ExitCode } from "../exit-codes.js";
import type { SamplingProvider } from "./providers/sampling-provider.js";

/**
 * --yes approves completions nobody reviews, so what they cost is the person's choice, not the
 * server's: the model must be configured (a server's model hint is never followed unattended), which
 * is checked before anything is sent, and maxTokens is capped.
 */
export function unattendedProvider(provider: SamplingProvider, settings: SamplingSettings): SamplingProvider {
  if (provider.needsPerson) return provider;
  requireUnattendedModel(settings);
  const cap = settings.maxTokens;
  return {
    label: `${provider.label}, at most ${cap} tokens`,
    needsPerson: false,
    complete: (params, signal) =>
      provider.complete({ ...params, maxTokens: Math.min(params.maxTokens, cap) }, signal),
  };
}

export function requireUnattendedModel(settings: SamplingSettings): void {
  if (settings.provider === "human" || settings.model) return;
  throw new CliError(
    ExitCode.usage,
    `--yes lets ${settings.provider} answer sampling requests unreviewed, so the model must be yours: pass --sampling-model (or set ROUNDTRIP_SAMPLING_MODEL); a server's model hint is only followed when you review the request`,
  );
}
