// The steps the runner walks, in order: one example of the reference server each, after the login
// every later step needs. Each step runs the CLI and checks what a person would see.
import type { VisitedPage } from "@roundtrip/local-auth";
import { deployStep } from "./deploy-step.js";
import { DemoFailure } from "./failures.js";
import { note } from "./narration.js";
import type { Step } from "./step.js";
import { taskStep } from "./task-step.js";

/** What the summarize step sends, and what the answers file has the client's model reply. */
const SUMMARIZED_TEXT =
  "Roundtrip is a reference platform for MCP multi round-trip requests: a server answers a call " +
  "with the questions it needs answered plus a sealed requestState, and the client retries the " +
  "same call with the answers, so no connection has to stay open in between.";
const SUMMARY_ANSWER =
  "Roundtrip lets an MCP server ask its client for input mid-call and resume from sealed state.";

/** What the steps send that no result repeats: Redis must not hold these in clear either. */
export const SENT_TEXTS: readonly string[] = [SUMMARIZED_TEXT, SUMMARY_ANSWER];

export const STEPS: readonly Step[] = [
  {
    name: "login",
    // Every later step needs the tokens.
    required: true,
    heading: "authorization code + PKCE through the CLI's loopback callback, alice in the browser",
    async run({ alice, cli }) {
      let signedIn: Promise<VisitedPage | Error> | undefined;
      const result = await cli.roundtrip(
        ["login", "--client-id", "mcp-interactive", "--scope", "mcp:tools mcp:deploy", "--no-browser"],
        {
          // The CLI prints where to start the sign-in; alice's browser goes there, like a person would.
          watch: (stderr) => {
            // Taken once the line after it is out too, so the CLI's whole sign-in notice shows first.
            const start = /Open: (http:\/\/127\.0\.0\.1:\d+\/login)\n[^\n]*\n/.exec(stderr)?.[1];
            if (start === undefined || signedIn !== undefined) return;
            note("signing in as alice on the development authorization server");
            signedIn = alice.signIn(start).then(
              (page) => {
                note(`alice's browser reached the CLI's callback: HTTP ${page.status} ${page.url.pathname}`);
                return page;
              },
              (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
            );
          },
        },
      );
      const page = await signedIn;
      if (page === undefined) throw new DemoFailure("the CLI printed no sign-in URL");
      if (page instanceof Error) throw new DemoFailure(`alice's sign-in failed: ${page.message}`);
      cli.expectOutput(
        result,
        /Logged in to .*client mcp-interactive.*mcp:deploy/,
        "a login with mcp:deploy",
      );
      return "alice signed in (mcp:tools mcp:deploy)";
    },
  },
  {
    name: "create_service",
    heading:
      "form elicitations across rounds: runtime and size in one round, then a confirmation quoting both",
    async run({ cli, interactive, rounds }) {
      const file = await cli.answers("create_service", {
        runtime: { runtime: "node22" },
        tier: { tier: "small" },
        confirmation: { confirm: true },
      });
      const result = await cli.roundtrip(
        ["call", "create_service", "name=api", ...file, ...cli.scripted("--yes")],
        { person: interactive },
      );
      cli.expectOutput(result, /Created service api on node22, size small/, "the created service");
      return rounds.lastResult();
    },
  },
  {
    name: "summarize",
    heading: {
      interactive:
        "sampling: the server has no model and asks the client's; you review the request and type the reply",
      scripted:
        "sampling: the server has no model and asks the client's; the reply comes from the answers file",
    },
    async run({ cli, interactive, rounds }) {
      const file = await cli.answers("summarize", {
        summary: { text: SUMMARY_ANSWER, model: "answers-file" },
      });
      const result = await cli.roundtrip(
        ["call", "summarize", `text=${SUMMARIZED_TEXT}`, ...file, ...cli.scripted("--yes")],
        { person: interactive },
      );
      cli.expectOutput(result, /^Summary \(by answers-file\): .+$/m, "the summary");
      return rounds.lastResult();
    },
  },
  {
    name: "list_workspace",
    heading: "roots: the server asks which directories the client shares; --root . shares this repository",
    async run({ cli, rounds }) {
      const result = await cli.roundtrip(["call", "list_workspace", "--root", ".", ...cli.scripted("--yes")]);
      cli.expectOutput(result, /The client shares 1 root\(s\)/, "the shared root");
      return rounds.lastResult();
    },
  },
  deployStep,
  taskStep,
  {
    name: "incident_brief",
    heading: "a prompt that asks before it renders: the severity shapes the brief",
    async run({ cli, interactive, rounds }) {
      const file = await cli.answers("incident_brief", { severity: { severity: "sev2" } });
      const result = await cli.roundtrip(
        ["prompt", "incident_brief", "service=api", ...file, ...cli.scripted("--yes")],
        { person: interactive },
      );
      cli.expectOutput(result, /Write a sev2 incident brief for api/, "the rendered prompt");
      return rounds.lastResult();
    },
  },
  {
    name: "status://api",
    heading: "a resource template that asks: which time window of the status to read",
    async run({ cli, interactive, rounds }) {
      const file = await cli.answers("status", { window: { window: "24h" } });
      const result = await cli.roundtrip(["read", "status://api", ...file, ...cli.scripted("--yes")], {
        person: interactive,
      });
      cli.expectOutput(result, /api: operational over the last 24h/, "the status");
      return rounds.lastResult();
    },
  },
];
