import type { CreateMessageRequestParams, CreateMessageResult } from "@roundtrip/sdk/protocol";
import { CliError, ExitCode } from "../../exit-codes.js";

/** Something that writes the completion a server's sampling request asks for. */
export interface SamplingProvider {
  /** What the person is told will answer, e.g. `openai gpt-4o-mini at http://127.0.0.1:11434/v1`. */
  readonly label: string;
  /** Whether it needs a person to type the reply (so it cannot run without a terminal). */
  readonly needsPerson: boolean;
  complete(params: CreateMessageRequestParams, signal?: AbortSignal): Promise<CreateMessageResult>;
}

/** The model to ask: the configured one wins over the server's hints, which are only preferences. */
export function requireModel(configured: string | undefined, params: CreateMessageRequestParams): string {
  const model = configured || params.modelPreferences?.hints?.find((hint) => hint.name)?.name;
  if (model) return model;
  throw new CliError(
    ExitCode.usage,
    "no model to sample with: pass --sampling-model (the server gave no model hint)",
  );
}
