import { type InputRequest, inputRequired, listRoots } from "@roundtrip/sdk";
import { type FixtureTool, noArguments, text } from "./catalogue.js";
import { acceptedContent, rootUris, samplingText, stateOf } from "./input-responses.js";
import { askColour, askConfirmation, askModel, askName } from "./questions.js";

/**
 * The multi round-trip tools. Each one asks in its result, reads the answers from the retry and asks
 * again for whatever is still missing; answers under keys it did not ask for are ignored.
 */

const greetByName: FixtureTool = {
  definition: noArguments("test_input_required_result_elicitation", "Asks the user's name, then greets them"),
  call: (_ctx, params) => {
    const name = acceptedContent(params, "user_name")?.name;
    if (typeof name === "string") return text(`Hello, ${name}!`);
    return inputRequired({ inputRequests: { user_name: askName() } });
  },
};

const askTheModel: FixtureTool = {
  definition: noArguments(
    "test_input_required_result_sampling",
    "Asks the client's model for a capital city",
  ),
  call: (_ctx, params) => {
    const answer = samplingText(params, "capital_question");
    if (answer !== undefined) return text(`The model answered: ${answer}`);
    return inputRequired({
      inputRequests: { capital_question: askModel("What is the capital of France?", 100) },
    });
  },
};

const showRoots: FixtureTool = {
  definition: noArguments("test_input_required_result_list_roots", "Lists the client's roots"),
  call: (_ctx, params) => {
    const roots = rootUris(params, "client_roots");
    if (roots !== undefined) return text(`Client roots: ${roots.join(", ") || "(none)"}`);
    return inputRequired({ inputRequests: { client_roots: listRoots() } });
  },
};

const confirmWithState: FixtureTool = {
  definition: noArguments(
    "test_input_required_result_request_state",
    "Asks for a confirmation and carries its progress in requestState",
  ),
  call: (_ctx, params) => {
    const ok = acceptedContent(params, "confirm")?.ok;
    if (stateOf(params)?.step === "confirm" && typeof ok === "boolean") {
      return text(`state-ok: the requestState came back intact and the answer was ${ok}`);
    }
    return inputRequired({
      inputRequests: { confirm: askConfirmation() },
      requestState: JSON.stringify({ step: "confirm" }),
    });
  },
};

const threeKinds: FixtureTool = {
  definition: noArguments(
    "test_input_required_result_multiple_inputs",
    "Asks a form question, the model and the roots in one round",
  ),
  call: (_ctx, params) => {
    // Answers count only when the sealed state shows they answer this tool's own batch; answers from
    // earlier rounds ride along in that state, since a client sends only the latest round's.
    const state = stateOf(params);
    const ours = state?.batch === "three-kinds";
    const gathered = {
      name: (ours ? acceptedContent(params, "user_name")?.name : undefined) ?? state?.name,
      greeting: (ours ? samplingText(params, "greeting") : undefined) ?? state?.greeting,
      roots: (ours ? rootUris(params, "client_roots") : undefined) ?? state?.roots,
    };
    const missing: Record<string, InputRequest> = {};
    if (typeof gathered.name !== "string") missing.user_name = askName();
    if (typeof gathered.greeting !== "string") missing.greeting = askModel("Generate a greeting", 50);
    if (!Array.isArray(gathered.roots)) missing.client_roots = listRoots();
    if (Object.keys(missing).length === 0) {
      return text(`${gathered.greeting} ${gathered.name}; roots: ${String(gathered.roots) || "(none)"}`);
    }
    return inputRequired({
      inputRequests: missing,
      requestState: JSON.stringify({ batch: "three-kinds", ...gathered }),
    });
  },
};

const twoSteps: FixtureTool = {
  definition: noArguments(
    "test_input_required_result_multi_round",
    "Asks a name, then a colour, carrying the first answer forward in requestState",
  ),
  call: (_ctx, params) => {
    const state = stateOf(params);
    if (state?.stage === 2 && typeof state.name === "string") {
      const color = acceptedContent(params, "step2")?.color;
      if (typeof color === "string") return text(`${state.name}'s favorite color is ${color}.`);
      return inputRequired({ inputRequests: { step2: askColour() }, requestState: JSON.stringify(state) });
    }
    const name = acceptedContent(params, "step1")?.name;
    if (state?.stage === 1 && typeof name === "string") {
      return inputRequired({
        inputRequests: { step2: askColour() },
        requestState: JSON.stringify({ stage: 2, name }),
      });
    }
    return inputRequired({
      inputRequests: { step1: askName("Step 1: What is your name?") },
      requestState: JSON.stringify({ stage: 1 }),
    });
  },
};

const guardedState: FixtureTool = {
  definition: noArguments(
    "test_input_required_result_tampered_state",
    "Carries its progress in sealed requestState; altered state is refused",
  ),
  call: (_ctx, params) => {
    const ok = acceptedContent(params, "confirm")?.ok;
    if (stateOf(params)?.step === "confirm" && typeof ok === "boolean") {
      return text(`The sealed requestState verified; the answer was ${ok}.`);
    }
    return inputRequired({
      inputRequests: { confirm: askConfirmation() },
      requestState: JSON.stringify({ step: "confirm" }),
    });
  },
};

const onlyWhatTheClientCanDo: FixtureTool = {
  definition: noArguments(
    "test_input_required_result_capabilities",
    "Asks only the kinds of question this request's client capabilities allow",
  ),
  call: (ctx, params) => {
    const caps = ctx.clientCapabilities;
    const asks: Record<string, InputRequest> = {};
    const answers: string[] = [];
    if (caps.elicitation) {
      const name = acceptedContent(params, "user_name")?.name;
      if (typeof name === "string") answers.push(`name ${name}`);
      else asks.user_name = askName();
    }
    if (caps.sampling) {
      const reply = samplingText(params, "capital_question");
      if (reply !== undefined) answers.push(`model ${reply}`);
      else asks.capital_question = askModel("What is the capital of France?", 100);
    }
    if (caps.roots) {
      const roots = rootUris(params, "client_roots");
      if (roots !== undefined) answers.push(`roots ${roots.join(", ")}`);
      else asks.client_roots = listRoots();
    }
    if (Object.keys(asks).length > 0) return inputRequired({ inputRequests: asks });
    return text(
      answers.length > 0 ? `Answers: ${answers.join("; ")}` : "The client can answer no questions.",
    );
  },
};

export const inputRequiredTools: readonly FixtureTool[] = [
  greetByName,
  askTheModel,
  showRoots,
  confirmWithState,
  threeKinds,
  twoSteps,
  guardedState,
  onlyWhatTheClientCanDo,
];
