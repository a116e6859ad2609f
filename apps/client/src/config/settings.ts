import { join } from "node:path";
import * as z from "zod";
import { CliError, ExitCode } from "../exit-codes.js";
import { readOptionalFile } from "../private-file.js";
import { roundtripHome } from "./home-dir.js";

export const SAMPLING_PROVIDERS = ["human", "openai", "anthropic"] as const;
/** The most tokens an unattended (--yes) completion may cost, whatever the server asks for. */
export const DEFAULT_UNATTENDED_MAX_TOKENS = 1024;
export type SamplingProviderName = (typeof SAMPLING_PROVIDERS)[number];

const ConfigFileSchema = z.strictObject({
  server: z.string().optional(),
  sampling: z
    .strictObject({
      provider: z.enum(SAMPLING_PROVIDERS).optional(),
      baseUrl: z.string().optional(),
      model: z.string().optional(),
      apiKeyEnv: z.string().optional(),
      maxTokens: z.number().int().positive().optional(),
    })
    .optional(),
});
export type ConfigFile = z.output<typeof ConfigFileSchema>;

export interface SamplingSettings {
  provider: SamplingProviderName;
  baseUrl?: string;
  model?: string;
  /** The name of the environment variable holding the API key; the key itself is never stored. */
  apiKeyEnv?: string;
  /** The cap on maxTokens of a completion approved by --yes. */
  maxTokens: number;
}

/** Options common to every command, as commander parsed them. */
export interface GlobalFlags {
  server?: string;
  /** --stdio: a command line that runs the server, spoken to on its stdin and stdout. */
  stdio?: string;
  json?: boolean;
  samplingProvider?: string;
  samplingBaseUrl?: string;
  samplingModel?: string;
  samplingApiKeyEnv?: string;
  samplingMaxTokens?: string;
}

export interface Settings {
  home: string;
  configFile: string;
  /** Undefined when neither --server, ROUNDTRIP_SERVER nor the config file names one. */
  server?: string;
  /** --stdio's command line; it wins over every server URL. */
  stdio?: string;
  sampling: SamplingSettings;
}

export async function loadConfigFile(path: string): Promise<ConfigFile> {
  const text = await readOptionalFile(path);
  if (text === undefined) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      ExitCode.usage,
      `${path} is not valid JSON (${(error as Error).message}); fix or delete it`,
    );
  }
  const parsed = ConfigFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "(top level)";
    throw new CliError(
      ExitCode.usage,
      `${path}: ${where}: ${issue?.message ?? "invalid"}; it may hold "server" and "sampling" {provider, baseUrl, model, apiKeyEnv, maxTokens}`,
    );
  }
  return parsed.data;
}

function providerName(value: string, from: string): SamplingProviderName {
  if ((SAMPLING_PROVIDERS as readonly string[]).includes(value)) return value as SamplingProviderName;
  throw new CliError(ExitCode.usage, `${from} is "${value}"; use one of ${SAMPLING_PROVIDERS.join(", ")}`);
}

function tokenCap(value: string, from: string): number {
  const cap = Number(value);
  if (Number.isInteger(cap) && cap > 0) return cap;
  throw new CliError(ExitCode.usage, `${from} must be a whole number of tokens above 0, got "${value}"`);
}

/** Flags win over the environment, which wins over the config file. */
export async function resolveSettings(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Settings> {
  const home = roundtripHome(env);
  const configFile = join(home, "config.json");
  const file = await loadConfigFile(configFile);
  const server = flags.server ?? (env.ROUNDTRIP_SERVER || undefined) ?? file.server;
  const provider =
    flags.samplingProvider !== undefined
      ? providerName(flags.samplingProvider, "--sampling-provider")
      : env.ROUNDTRIP_SAMPLING_PROVIDER
        ? providerName(env.ROUNDTRIP_SAMPLING_PROVIDER, "ROUNDTRIP_SAMPLING_PROVIDER")
        : (file.sampling?.provider ?? "human");
  const maxTokens =
    flags.samplingMaxTokens !== undefined
      ? tokenCap(flags.samplingMaxTokens, "--sampling-max-tokens")
      : env.ROUNDTRIP_SAMPLING_MAX_TOKENS
        ? tokenCap(env.ROUNDTRIP_SAMPLING_MAX_TOKENS, "ROUNDTRIP_SAMPLING_MAX_TOKENS")
        : (file.sampling?.maxTokens ?? DEFAULT_UNATTENDED_MAX_TOKENS);
  const sampling: SamplingSettings = { provider, maxTokens };
  const baseUrl =
    flags.samplingBaseUrl ?? (env.ROUNDTRIP_SAMPLING_BASE_URL || undefined) ?? file.sampling?.baseUrl;
  const model = flags.samplingModel ?? (env.ROUNDTRIP_SAMPLING_MODEL || undefined) ?? file.sampling?.model;
  const apiKeyEnv =
    flags.samplingApiKeyEnv ?? (env.ROUNDTRIP_SAMPLING_API_KEY_ENV || undefined) ?? file.sampling?.apiKeyEnv;
  if (baseUrl !== undefined) sampling.baseUrl = baseUrl;
  if (model !== undefined) sampling.model = model;
  if (apiKeyEnv !== undefined) sampling.apiKeyEnv = apiKeyEnv;
  if (flags.stdio !== undefined && flags.stdio.trim() === "") {
    throw new CliError(
      ExitCode.usage,
      '--stdio takes the command that runs the server, e.g. --stdio "node server.js"',
    );
  }
  if (flags.stdio !== undefined && flags.server !== undefined) {
    throw new CliError(ExitCode.usage, "--stdio and --server name two servers; give one of them");
  }
  return {
    home,
    configFile,
    ...(server === undefined ? {} : { server: checkServerUrl(server) }),
    ...(flags.stdio === undefined ? {} : { stdio: flags.stdio }),
    sampling,
  };
}

export function checkServerUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(
      ExitCode.usage,
      `the server URL "${value}" is not an absolute URL; pass e.g. --server https://mcp.example.com/mcp`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new CliError(ExitCode.usage, `the server URL "${value}" must use http or https`);
  }
  return url.href;
}

/** Where a command connects: an MCP endpoint URL, or a command run as a stdio server (its label then). */
export interface Target {
  /** The URL, or `stdio: <command>` for messages and records. */
  server: string;
  stdio?: string;
}

export function stdioLabel(command: string): string {
  return `stdio: ${command}`;
}

export function requireTarget(settings: Settings): Target {
  if (settings.stdio !== undefined) return { server: stdioLabel(settings.stdio), stdio: settings.stdio };
  return { server: requireServer(settings) };
}

/** The server a command talks to, or a usage error saying how to name one. */
export function requireServer(settings: Settings): string {
  if (settings.server !== undefined) return settings.server;
  throw new CliError(
    ExitCode.usage,
    `no server given: pass --server URL (or --stdio "<command>"), set ROUNDTRIP_SERVER, or put {"server": "URL"} in ${settings.configFile}`,
  );
}
