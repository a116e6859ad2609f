import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";

/** The official TypeScript SDK v1 client (the 2025-era peer most hosts ship), connected over HTTP. */
export async function connectV1(
  url: string,
  capabilities: ClientCapabilities = {},
  protocolVersion?: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; close(): Promise<void> }> {
  const client = new Client({ name: "v1-peer", version: "1.0.0" }, { capabilities });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  if (protocolVersion) transport.setProtocolVersion(protocolVersion);
  await client.connect(transport);
  return {
    client,
    transport,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}
