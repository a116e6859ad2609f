import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a stand-in received: enough to check what the CLI sent to the model API. */
export interface SeenRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

export interface ModelStandIn {
  baseUrl: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

async function serve(
  route: string,
  answer: (request: SeenRequest, res: ServerResponse) => void,
  basePath: string,
): Promise<ModelStandIn> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== route) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      const request = {
        path: req.url,
        headers: req.headers,
        body: JSON.parse(text) as Record<string, unknown>,
      };
      seen.push(request);
      answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** Speaks OpenAI's chat completions, as Ollama, vLLM and llama.cpp do; wants `Bearer <key>` when a key is set. */
export function openAiStandIn(key: string | undefined): Promise<ModelStandIn> {
  return serve(
    "/v1/chat/completions",
    (request, res) => {
      if (key !== undefined && request.headers.authorization !== `Bearer ${key}`) {
        json(res, 401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } });
        return;
      }
      const messages = request.body.messages as { role: string; content: string }[];
      const last = messages.at(-1)?.content ?? "";
      json(res, 200, {
        id: "chatcmpl-1",
        object: "chat.completion",
        model: `${String(request.body.model)}-0001`,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: `openai says: ${last.length} chars` },
            finish_reason: "stop",
          },
        ],
      });
    },
    "/v1",
  );
}

/** Speaks the Anthropic Messages API; wants x-api-key and anthropic-version. */
export function anthropicStandIn(key: string): Promise<ModelStandIn> {
  return serve(
    "/v1/messages",
    (request, res) => {
      if (request.headers["x-api-key"] !== key || request.headers["anthropic-version"] !== "2023-06-01") {
        json(res, 401, {
          type: "error",
          error: { type: "authentication_error", message: "invalid x-api-key" },
        });
        return;
      }
      json(res, 200, {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: String(request.body.model),
        content: [
          { type: "text", text: "anthropic " },
          { type: "text", text: "says hi" },
        ],
        stop_reason: "max_tokens",
      });
    },
    "",
  );
}
