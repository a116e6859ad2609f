import { Client, PaginationError } from "@roundtrip/sdk";

const client = new Client("http://localhost:3000/mcp");
const { tools } = await client.listTools({ all: true });
console.log(tools.map((tool) => tool.name));
const docs = await client.listResources({ all: true, maxPages: 10 }).catch((error: unknown) => {
  if (error instanceof PaginationError) return { resources: [] };
  throw error;
});
console.log(docs.resources.length);
