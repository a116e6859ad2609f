import type { Command } from "commander";
import {
  DEFAULT_UNATTENDED_MAX_TOKENS,
  type GlobalFlags,
  resolveSettings,
  type Settings,
} from "../config/settings.js";
import type { Connection } from "../connection.js";
import { type AnswersFile, loadAnswersFile } from "../flow/answers-file.js";
import type { AnswerPolicy } from "../flow/round-answers.js";
import { rootsFrom } from "../roots.js";
import { consentedRoots } from "../roots-consent.js";
import { samplingProvider } from "../sampling/providers/provider-factory.js";
import { requireUnattendedModel, unattendedProvider } from "../sampling/unattended-sampling.js";
import type { Terminal } from "../terminal.js";

/** The options of every command that may be asked for input: call, prompt, read and resume. */
export function withFlowOptions(command: Command): Command {
  return command
    .option("--answers <file>", "answers by input request key (JSON), for scripts and CI")
    .option(
      "-y, --yes",
      "approve sampling as shown, send forms at their defaults, consent to URLs (not opened)",
    )
    .option(
      "--detach",
      "save the flow when it needs a person (a task, once the server has made it), and exit with code 10; finish it with `resume`",
    )
    .option(
      "--root <dir>",
      "a directory to share as a root (repeatable; default: none, so a server asking for roots gets an empty list, unless you agree at the terminal to share the working directory)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("--no-browser", "never open a browser; print URLs instead")
    .option(
      "--no-tasks",
      "do not declare the tasks extension: the server answers the call itself, its rounds on the wire (saved flows, not tasks, with --detach)",
    )
    .option("--sampling-provider <name>", "who answers sampling requests: human, openai or anthropic")
    .option(
      "--sampling-base-url <url>",
      "the provider's API base URL (OpenAI-compatible: OpenAI, Ollama, vLLM, llama.cpp)",
    )
    .option(
      "--sampling-model <model>",
      "the model to sample with (required with --yes; else the server's hint when you review)",
    )
    .option(
      "--sampling-max-tokens <n>",
      `the most tokens a completion approved by --yes may ask for (default ${DEFAULT_UNATTENDED_MAX_TOKENS})`,
    )
    .option("--sampling-api-key-env <name>", "the environment variable holding the provider's API key");
}

export interface FlowFlags extends GlobalFlags {
  answers?: string;
  yes?: boolean;
  detach?: boolean;
  root?: string[];
  browser?: boolean;
  /** False with --no-tasks. */
  tasks?: boolean;
}

export async function flowSettings(flags: FlowFlags): Promise<{ settings: Settings; answers: AnswersFile }> {
  const settings = await resolveSettings(flags);
  // Before anything is sent: the flow must not stop at its first sampling request for want of a model.
  if (flags.yes) requireUnattendedModel(settings.sampling);
  const answers = flags.answers ? await loadAnswersFile(flags.answers) : {};
  return { settings, answers };
}

export function answerPolicy(
  flags: FlowFlags,
  settings: Settings,
  answers: AnswersFile,
  connection: Connection,
  terminal: Terminal,
): AnswerPolicy {
  let roots: ReturnType<typeof rootsFrom> | undefined;
  const provider = samplingProvider(settings.sampling, terminal);
  return {
    answers,
    yes: flags.yes === true,
    detach: flags.detach === true,
    browser: flags.browser !== false,
    roots: () => {
      roots ??= flags.root?.length
        ? rootsFrom(flags.root)
        : consentedRoots(terminal, { yes: flags.yes === true }).then((dirs) => rootsFrom(dirs));
      return roots;
    },
    provider: flags.yes ? unattendedProvider(provider, settings.sampling) : provider,
    terminal,
    asker: connection.asker(),
  };
}
