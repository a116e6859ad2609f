import { createFetchHandler, type FetchMcpHandler, McpServer } from "@roundtrip/sdk/server";
import { RequestStateSecurity } from "@roundtrip/sealing";

interface Env {
  STATE_KEY: string;
}

let handler: FetchMcpHandler | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    // Secrets arrive with the first request, so the server is built then, once per isolate.
    if (handler === undefined) {
      const security = new RequestStateSecurity({ keys: [env.STATE_KEY] });
      const mcp = new McpServer(
        { name: "infra", version: "1.0.0" },
        { requestStateSecurity: security, legacy: false },
      );
      mcp.tool("hello", {}, () => "hello");
      handler = createFetchHandler(mcp);
    }
    return handler(request);
  },
};
