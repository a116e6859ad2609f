import type { SamplingMessage } from "@roundtrip/sdk/protocol";
import type * as z from "zod";
import { CliError, ExitCode } from "../../exit-codes.js";

export type Block = { type: string; text?: string; data?: string; mimeType?: string };

export function blocksOf(message: Pick<SamplingMessage, "content">): Block[] {
  return (Array.isArray(message.content) ? message.content : [message.content]) as Block[];
}

/** Text and images travel to the model APIs; anything else (audio, tool calls) is refused, naming it. */
export function unsupported(block: Block, provider: string): CliError {
  return new CliError(
    ExitCode.failure,
    `the sampling request contains a ${block.type} block, which the ${provider} provider cannot send; answer it with --sampling-provider human`,
  );
}

/** Reads an HTTP API's error body into a message that says where it came from, without echoing secrets. */
export async function apiFailure(provider: string, url: string, response: Response): Promise<CliError> {
  const body = (await response.text()).slice(0, 300).replace(/\s+/g, " ");
  const hint =
    response.status === 401 || response.status === 403
      ? "; check the API key in the variable named by --sampling-api-key-env"
      : response.status === 404
        ? "; check --sampling-base-url and --sampling-model"
        : "";
  return new CliError(
    ExitCode.failure,
    `the ${provider} API at ${url} answered HTTP ${response.status}: ${body}${hint}`,
  );
}

/**
 * POSTs a JSON body to a model API and reads its answer against `shape`; `expected` names what a
 * right answer holds, so a wrong base URL gets a message that says which API it did not look like.
 */
export async function postModelApi<T>(request: {
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  shape: z.ZodType<T>;
  expected: string;
  fetch: typeof fetch;
  signal?: AbortSignal;
}): Promise<T> {
  const response = await request.fetch(request.url, {
    method: "POST",
    headers: { "content-type": "application/json", ...request.headers },
    body: JSON.stringify(request.body),
    ...(request.signal ? { signal: request.signal } : {}),
  });
  if (!response.ok) throw await apiFailure(request.provider, request.url, response);
  const parsed = request.shape.safeParse(await response.json());
  if (!parsed.success) {
    throw new CliError(
      ExitCode.failure,
      `the ${request.provider} API at ${request.url} answered without ${request.expected}`,
    );
  }
  return parsed.data;
}

export function apiKeyFrom(
  env: NodeJS.ProcessEnv,
  variable: string,
  required: boolean,
  provider: string,
): string | undefined {
  const key = env[variable];
  if (key) return key;
  if (!required) return undefined;
  throw new CliError(
    ExitCode.usage,
    `the ${provider} provider needs an API key: set ${variable}, or name another variable with --sampling-api-key-env`,
  );
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
