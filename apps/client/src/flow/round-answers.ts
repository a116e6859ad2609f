import type { InputRequest, InputResponse, InputResponses, Root } from "@roundtrip/sdk/protocol";
import { type Asker, askerLabel } from "../elicitation/asker.js";
import { defaultContent, formFields } from "../elicitation/form-fields.js";
import { urlLines } from "../elicitation/url-lines.js";
import { CliError, ExitCode } from "../exit-codes.js";
import type { SamplingProvider } from "../sampling/providers/sampling-provider.js";
import { safeBlock, safeInline, UNDER_LABEL } from "../terminal/safe-text.js";
import type { Terminal } from "../terminal.js";
import { type AnswersFile, formAnswer, rootsAnswer, samplingAnswer, urlAnswer } from "./answers-file.js";

/** How the answers to one round are found, in order: --answers, what needs no person, then the person. */
export interface AnswerPolicy {
  answers: AnswersFile;
  /** --yes: approve sampling with a model provider as shown, send forms at their defaults, consent to URLs. */
  yes: boolean;
  /** --detach: save the flow instead of asking the person. */
  detach: boolean;
  /** false with --no-browser: URLs are shown, never opened. */
  browser: boolean;
  roots: () => Promise<Root[]>;
  provider: SamplingProvider;
  terminal: Terminal;
  asker: Asker;
}

export type RoundOutcome =
  | { kind: "answered"; responses: InputResponses }
  /** Some questions need a person and --detach was given: the keys that wait for one. */
  | { kind: "detach"; waiting: string[] };

const NEEDS_PERSON = Symbol("needs a person");

function kindOf(request: InputRequest): string {
  if (request.method === "elicitation/create")
    return request.params.mode === "url" ? "a URL to open" : "a form";
  if (request.method === "sampling/createMessage") return "a completion from your language model";
  return "your roots";
}

/** What can be answered without a person: from --answers, roots, and what --yes approves. */
async function answerWithoutPerson(
  key: string,
  request: InputRequest,
  policy: AnswerPolicy,
): Promise<InputResponse | typeof NEEDS_PERSON> {
  const given = policy.answers[key];
  const { terminal } = policy;
  switch (request.method) {
    case "elicitation/create": {
      const params = request.params;
      if (params.mode === "url") {
        if (given !== undefined) return urlAnswer(key, given);
        if (!policy.yes) return NEEDS_PERSON;
        terminal.notice(`${askerLabel(policy.asker)} asks you to open a web page:`);
        terminal.notice(`${UNDER_LABEL}${safeBlock(params.message, UNDER_LABEL)}`);
        for (const line of urlLines(new URL(params.url), terminal)) terminal.notice(line);
        terminal.notice("  --yes consents for you; the page is not opened here.");
        return { action: "accept" };
      }
      const fields = formFields(params.requestedSchema);
      if (given !== undefined) return formAnswer(key, given, fields);
      const defaults = policy.yes ? defaultContent(fields) : undefined;
      return defaults ? { action: "accept", content: defaults } : NEEDS_PERSON;
    }
    case "sampling/createMessage": {
      if (given !== undefined) return samplingAnswer(key, given);
      if (policy.yes && !policy.provider.needsPerson) {
        terminal.notice(`Sampling "${safeInline(key)}" with ${safeInline(policy.provider.label)} (--yes)`);
        return policy.provider.complete(request.params);
      }
      return NEEDS_PERSON;
    }
    case "roots/list":
      return { roots: given !== undefined ? await rootsAnswer(key, given) : await policy.roots() };
  }
}

/** The prompt modules load only when a person is asked, so scripted runs start quickly. */
async function askPerson(key: string, request: InputRequest, policy: AnswerPolicy): Promise<InputResponse> {
  const { terminal, asker } = policy;
  if (request.method === "elicitation/create") {
    const params = request.params;
    if (params.mode === "url") {
      const { askUrl } = await import("../elicitation/url-prompt.js");
      return askUrl(params, asker, terminal, { browser: policy.browser });
    }
    const { askForm } = await import("../elicitation/form-prompt.js");
    return askForm(params, asker, terminal);
  }
  if (request.method === "sampling/createMessage") {
    const { reviewSampling } = await import("../sampling/sampling-review.js");
    return reviewSampling(key, request.params, policy.provider, asker, terminal);
  }
  return { roots: await policy.roots() };
}

/**
 * Answers every input request of one round. Questions for a person are asked one after the other (one
 * terminal), after everything that needs nobody has been settled, so a missing answer fails fast.
 */
export async function answerRound(
  requests: Record<string, InputRequest>,
  policy: AnswerPolicy,
): Promise<RoundOutcome> {
  const responses: InputResponses = {};
  const waiting: string[] = [];
  for (const [key, request] of Object.entries(requests)) {
    const answer = await answerWithoutPerson(key, request, policy);
    if (answer === NEEDS_PERSON) waiting.push(key);
    else responses[key] = answer;
  }
  if (waiting.length === 0) return { kind: "answered", responses };
  if (policy.detach) return { kind: "detach", waiting };
  if (!policy.terminal.interactive) {
    const first = waiting[0]!;
    throw new CliError(
      ExitCode.inputNeeded,
      `${askerLabel(policy.asker)} asks for ${kindOf(requests[first]!)} under the key "${first}"` +
        (waiting.length > 1
          ? ` (and also ${waiting
              .slice(1)
              .map((k) => `"${k}"`)
              .join(", ")})`
          : "") +
        `, and there is no terminal to ask in: put an answer for "${first}" in --answers FILE, pass --yes where a default will do, or use --detach and finish with \`roundtrip resume\``,
    );
  }
  // Nothing is waited on while the person answers: a spinner would draw over the prompt.
  policy.terminal.status.clear();
  for (const key of waiting) responses[key] = await askPerson(key, requests[key]!, policy);
  return { kind: "answered", responses };
}
