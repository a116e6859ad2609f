import { Command, CommanderError } from "commander";
import {
  type ArgumentsSchema,
  checkArgumentNames,
  checkArgumentValues,
  parseArguments,
} from "./commands/call-arguments.js";
import { type FlowFlags, withFlowOptions } from "./commands/flow-options.js";
import { type LoginFlags, loginCommand } from "./commands/login.js";
import { type LogoutFlags, logoutCommand } from "./commands/logout.js";
import { type PendingFlags, pendingCommand } from "./commands/pending.js";
import { promptsCommand } from "./commands/prompts.js";
import { resourcesCommand } from "./commands/resources.js";
import { resumeCommand, runFlowCommand } from "./commands/run-flow.js";
import { skillsCommand } from "./commands/skills.js";
import { cancelTaskCommand, tasksCommand } from "./commands/tasks.js";
import { listAllTools, toolsCommand } from "./commands/tools.js";
import { describeFailure } from "./error-report.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { stdoutWriter } from "./json-output.js";
import { safeBlock } from "./terminal/safe-text.js";
import { processTerminal, type Terminal } from "./terminal.js";
import { CLIENT_VERSION } from "./version.js";

const EXIT_CODES_HELP = `
Exit codes:
  0    done
  1    the server, the network or the protocol failed
  2    bad command line, configuration or --answers file; or arguments the server refuses as invalid
  3    credentials missing or refused: run \`roundtrip login\`
  4    the server asked for input and there was no answer and no terminal
  5    the tool reported an error result
  6    you refused a sampling request
  7    a question was declined or cancelled; the server finished without its answer
  10   the flow was saved (--detach, or Ctrl-C while waiting for a page): \`roundtrip resume <id>\`
  130  interrupted

Environment: ROUNDTRIP_SERVER, ROUNDTRIP_HOME (default ~/.config/roundtrip), ROUNDTRIP_TOKEN (sent
only to ROUNDTRIP_TOKEN_SERVER, else ROUNDTRIP_SERVER),
ROUNDTRIP_SAMPLING_PROVIDER, ROUNDTRIP_SAMPLING_BASE_URL, ROUNDTRIP_SAMPLING_MODEL,
ROUNDTRIP_SAMPLING_API_KEY_ENV, ROUNDTRIP_SAMPLING_MAX_TOKENS, BROWSER.`;

/**
 * Runs one command line and returns the exit code; never calls process.exit, so tests can use it too.
 * Without a `given` terminal, the process's own is used, set up once the global options are known.
 */
export async function main(argv: readonly string[], given?: Terminal): Promise<ExitCodeValue> {
  let exitCode: ExitCodeValue = ExitCode.ok;
  let json = false;
  let server: string | undefined;
  let terminal = given ?? processTerminal();
  const program = new Command("roundtrip")
    .description("Call MCP 2026-07-28 servers, answering their questions (forms, URLs, sampling, roots) here")
    .version(CLIENT_VERSION, "-V, --version")
    .option("-s, --server <url>", "the MCP endpoint (else ROUNDTRIP_SERVER, else the config file)")
    .option(
      "--stdio <command>",
      'run this command as the server and speak to it on stdin/stdout, e.g. --stdio "node server.js"',
    )
    .option("--json", "print one JSON document on stdout (results and errors)")
    .option("-v, --verbose", "print each round: which keys the server asked, which were answered")
    .showHelpAfterError()
    .addHelpText("after", EXIT_CODES_HELP)
    .exitOverride()
    .hook("preAction", (_program, action) => {
      const flags = action.optsWithGlobals() as { json?: boolean; server?: string; verbose?: boolean };
      json = flags.json === true;
      server = flags.server;
      terminal = given ?? processTerminal({ json, verbose: flags.verbose === true });
    });

  const writer = () => stdoutWriter(json);
  const run = (action: () => Promise<ExitCodeValue>) => async () => {
    exitCode = await action();
  };

  program
    .command("tools")
    .description("list the server's tools")
    .option("-l, --long", "with each tool's arguments (type, required, description) and annotations")
    .action(function (this: Command) {
      return run(() => toolsCommand(this.optsWithGlobals(), terminal, writer()))();
    });

  program
    .command("prompts")
    .description("list the server's prompts and their arguments")
    .action(function (this: Command) {
      return run(() => promptsCommand(this.optsWithGlobals(), terminal, writer()))();
    });

  program
    .command("resources")
    .description("list the server's resources and resource templates")
    .action(function (this: Command) {
      return run(() => resourcesCommand(this.optsWithGlobals(), terminal, writer()))();
    });

  program
    .command("skills")
    .description(
      "list the server's skills; with a name, show its SKILL.md; with a path, read that file of it",
    )
    .argument("[name]", "the skill's name, as listed")
    .argument("[path]", "a file of the skill, e.g. scripts/verify.sh (default SKILL.md)")
    .action(function (this: Command, name: string | undefined, path: string | undefined) {
      return run(() => skillsCommand(name, path, this.optsWithGlobals(), terminal, writer()))();
    });

  withFlowOptions(
    program
      .command("call")
      .description("call a tool; arguments as key=value, key:=json, or one JSON object")
      .argument("<tool>", "the tool's name")
      .argument("[arguments...]", "key=value, key:=json, or '{...}'"),
  ).action(function (this: Command, tool: string, words: string[]) {
    return run(() =>
      runFlowCommand(
        this.optsWithGlobals() as FlowFlags,
        async (connection) => {
          const schema =
            words.length > 0
              ? ((await listAllTools(connection.client)).find((t) => t.name === tool)?.inputSchema as
                  | ArgumentsSchema
                  | undefined)
              : undefined;
          const args = parseArguments(words, schema);
          checkArgumentNames(tool, args, schema);
          checkArgumentValues(tool, args, schema as Record<string, unknown> | undefined);
          return { method: "tools/call", target: tool, ...(args ? { arguments: args } : {}) };
        },
        terminal,
        writer(),
      ),
    )();
  });

  withFlowOptions(
    program
      .command("prompt")
      .description("get a prompt; arguments as key=value or one JSON object")
      .argument("<name>", "the prompt's name")
      .argument("[arguments...]", "key=value or '{...}'"),
  ).action(function (this: Command, name: string, words: string[]) {
    return run(() =>
      runFlowCommand(
        this.optsWithGlobals() as FlowFlags,
        async () => {
          const args = parseArguments(words);
          const strings = args
            ? Object.fromEntries(
                Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
              )
            : undefined;
          return { method: "prompts/get", target: name, ...(strings ? { arguments: strings } : {}) };
        },
        terminal,
        writer(),
      ),
    )();
  });

  withFlowOptions(
    program.command("read").description("read a resource").argument("<uri>", "the resource URI"),
  ).action(function (this: Command, uri: string) {
    return run(() =>
      runFlowCommand(
        this.optsWithGlobals() as FlowFlags,
        async () => ({ method: "resources/read", target: uri }),
        terminal,
        writer(),
      ),
    )();
  });

  program
    .command("login")
    .description(
      "sign in to the server: --client-id and --client-secret for a machine client, else in the browser",
    )
    .option("--client-id <id>", "a client registered with the authorization server")
    .option("--client-secret <secret>", "its secret: signs in as that client (client credentials)")
    .option(
      "--issuer <url>",
      "the authorization server the client is registered with (default: the one the server names now); its id and secret go nowhere else",
    )
    .option("--scope <scopes>", "the scopes to ask for (default: what the server advertises)")
    .option(
      "--callback-port <port>",
      "the loopback port of the browser sign-in's redirect (default: any free one)",
    )
    .option("--no-browser", "print the sign-in URL instead of offering to open a browser")
    .action(function (this: Command) {
      return run(() => loginCommand(this.optsWithGlobals() as LoginFlags, terminal, writer()))();
    });

  program
    .command("logout")
    .description("delete the cached tokens and sign-in settings of the server")
    .option("--all", "of every server")
    .action(function (this: Command) {
      return run(() => logoutCommand(this.optsWithGlobals() as LogoutFlags, terminal, writer()))();
    });

  program
    .command("pending")
    .description("list the flows saved by --detach")
    .option("--delete <id>", "delete one instead")
    .option("--prune", "ask each flow's server whether it can still open it, and delete those it cannot")
    .action(function (this: Command) {
      return run(() => pendingCommand(this.optsWithGlobals() as PendingFlags, terminal, writer()))();
    });

  withFlowOptions(
    program
      .command("resume")
      .description("finish a flow or follow a task saved by --detach (or Ctrl-C)")
      .argument("<id>", "as `pending` or `tasks` lists it"),
  ).action(function (this: Command, id: string) {
    return run(() => resumeCommand(id, this.optsWithGlobals() as FlowFlags, terminal, writer()))();
  });

  program
    .command("tasks")
    .description("list the tasks saved by --detach or Ctrl-C, with the status each last had")
    .action(function (this: Command) {
      return run(() => tasksCommand(this.optsWithGlobals(), writer()))();
    });

  program
    .command("cancel")
    .description("cancel a saved task on its server")
    .argument("<id>", "as `tasks` lists it")
    .option("--no-browser", "never open a browser; print URLs instead")
    .action(function (this: Command, id: string) {
      return run(() => cancelTaskCommand(id, this.optsWithGlobals(), terminal, writer()))();
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end in a CommanderError too, with exit code 0.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const failure = describeFailure(error, server);
    if (json)
      stdoutWriter(true).document({ status: "error", exitCode: failure.code, error: failure.message });
    // The message may quote the server (its error message, its names): escaped, and kept under this line.
    terminal.notice(`roundtrip: ${safeBlock(failure.message, "  ")}`);
    return failure.code;
  }
}
