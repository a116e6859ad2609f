import { Client, StructuredContentError } from "@roundtrip/sdk";

const client = new Client("http://localhost:3000/mcp");
await client.listTools(); // remembers each tool's outputSchema
try {
  const { structuredContent } = await client.callTool("weather", { city: "Lisbon" });
  console.log(structuredContent);
} catch (error) {
  if (!(error instanceof StructuredContentError)) throw error;
  console.error(`weather broke its outputSchema: ${error.violations.join("; ")}`);
}
