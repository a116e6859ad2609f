import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Listening {
  /** The MCP endpoint on 127.0.0.1 and the ephemeral port the OS picked. */
  url: string;
  close(): Promise<void>;
}

/** Serves `handle` with node:http on 127.0.0.1, port 0. */
export async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
): Promise<Listening> {
  const http = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
