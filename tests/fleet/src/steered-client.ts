import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { INSTANCE_HEADER } from "./instance.js";

/** The two deploys a test runs on one session: a question for each is told apart by its target. */
export type Target = "staging" | "production";
export type Mode = "form" | "url";

/** What the client saw happen, in the order it happened. */
export type Happening =
  | { kind: "question"; call: Target; mode: Mode }
  | { kind: "result"; call: Target; text: string }
  | { kind: "failure"; call: Target; error: string };

/** Where the client sent one request, and which instance answered it (its Roundtrip-Instance header). */
export interface Sent {
  what: string;
  instance: string;
}

interface Question {
  id: string | number;
  settle(result: ElicitResult): void;
}

/** Items pushed by one side and read in order by the other; a read that lost a race is the next read. */
export class Happenings<T> {
  readonly #items: T[] = [];
  #wake: ((item: T) => void) | undefined;
  #reading: Promise<T> | undefined;

  push(item: T): void {
    const wake = this.#wake;
    this.#wake = undefined;
    if (wake) wake(item);
    else this.#items.push(item);
  }

  next(): Promise<T> {
    this.#reading ??= new Promise<T>((resolve) => {
      const item = this.#items.shift();
      if (item !== undefined) resolve(item);
      else this.#wake = resolve;
    }).finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }
}

function targetOf(message: string): Target {
  const target = /to (staging|production)\b/.exec(message)?.[1];
  if (target !== "staging" && target !== "production") throw new Error(`no target in "${message}"`);
  return target;
}

function bodyOf(init: RequestInit | undefined): Record<string, unknown> | undefined {
  if (typeof init?.body !== "string") return undefined;
  try {
    return JSON.parse(init.body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * The official TypeScript SDK v1 client (a 2025-era client) deploying `service` twice on one session,
 * with every HTTP request going where the test says: each call to the URL named for its target, each
 * answer to the URL the test answers through, everything else (initialize, the GET stream, DELETE) to
 * `home`. The server's questions wait until the test answers them.
 */
export class SteeredClient {
  readonly happenings = new Happenings<Happening>();
  readonly sent: Sent[] = [];
  readonly #client: Client;
  readonly #transport: StreamableHTTPClientTransport;
  readonly #home: string;
  readonly #callVia = new Map<Target, string>();
  readonly #answerVia = new Map<string | number, string>();
  readonly #answered = new Map<string | number, (status: number) => void>();
  readonly #questions = new Map<string, Question>();
  #streamOpened: (() => void) | undefined;

  constructor(home: string, token: string) {
    this.#home = home;
    this.#client = new Client(
      { name: "v1-steered", version: "1.0.0" },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    this.#client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      const params = request.params as { mode?: string; message: string };
      const call = targetOf(params.message);
      const mode: Mode = params.mode === "url" ? "url" : "form";
      return new Promise<ElicitResult>((settle) => {
        this.#questions.set(`${call}/${mode}`, { id: extra.requestId, settle });
        this.happenings.push({ kind: "question", call, mode });
      });
    });
    this.#transport = new StreamableHTTPClientTransport(new URL(home), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: this.#fetch,
    });
  }

  /** The session's id, once connected. */
  get sessionId(): string {
    const id = this.#transport.sessionId;
    if (id === undefined) throw new Error("not connected");
    return id;
  }

  /** Opens the session and its GET stream: no request of the client's own is in flight afterwards. */
  async connect(): Promise<void> {
    const opened = new Promise<void>((resolve) => {
      this.#streamOpened = resolve;
    });
    await this.#client.connect(this.#transport);
    await opened;
  }

  /** Starts deploying `service` to `target` through `via`; its questions and result become happenings. */
  deploy(service: string, target: Target, via = this.#home): void {
    this.#callVia.set(target, via);
    this.#client
      .callTool({ name: "deploy", arguments: { service, env: target } }, undefined, { timeout: 300_000 })
      .then(
        (result) => {
          const content = result.content as { type: string; text?: string }[];
          this.happenings.push({ kind: "result", call: target, text: content[0]?.text ?? "" });
        },
        (error: unknown) => this.happenings.push({ kind: "failure", call: target, error: String(error) }),
      );
  }

  /** The id of the question `target`'s call asked in `mode`, as the server sent it. */
  questionId(target: Target, mode: Mode): string | number {
    return this.#question(target, mode).id;
  }

  /** Answers the question through `via`; resolves to the HTTP status the answer's POST got. */
  answer(target: Target, mode: Mode, result: ElicitResult, via = this.#home): Promise<number> {
    const question = this.#question(target, mode);
    this.#questions.delete(`${target}/${mode}`);
    this.#answerVia.set(question.id, via);
    const status = new Promise<number>((resolve) => this.#answered.set(question.id, resolve));
    question.settle(result);
    return status;
  }

  async close(): Promise<void> {
    await this.#transport.terminateSession().catch(() => undefined);
    await this.#client.close();
  }

  #question(target: Target, mode: Mode): Question {
    const question = this.#questions.get(`${target}/${mode}`);
    if (!question) throw new Error(`the ${target} call has no open ${mode} question`);
    return question;
  }

  readonly #fetch: typeof fetch = async (input, init) => {
    const message = bodyOf(init);
    const params = message?.params as { arguments?: { env?: Target } } | undefined;
    const isAnswer = message !== undefined && message.method === undefined && "id" in message;
    const id = message?.id as string | number | undefined;
    let what = `${init?.method ?? "GET"} ${String(message?.method ?? "")}`.trim();
    let url = this.#home;
    if (message?.method === "tools/call" && params?.arguments?.env) {
      what = `call ${params.arguments.env}`;
      url = this.#callVia.get(params.arguments.env) ?? url;
    } else if (isAnswer && id !== undefined) {
      what = `answer ${id}`;
      url = this.#answerVia.get(id) ?? url;
    }
    const target = new URL(url);
    const original = new URL(input instanceof Request ? input.url : String(input));
    target.search = original.search;
    const response = await fetch(target, init);
    this.sent.push({ what, instance: response.headers.get(INSTANCE_HEADER) ?? "" });
    if (isAnswer && id !== undefined) this.#answered.get(id)?.(response.status);
    if ((init?.method ?? "GET") === "GET" && response.ok) this.#streamOpened?.();
    return response;
  };
}
