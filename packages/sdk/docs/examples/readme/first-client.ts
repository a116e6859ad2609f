import { Client } from "@roundtrip/sdk";

// A server at this URL with the two tools above. onElicit is where the user answers a form.
const client = new Client("http://localhost:3000/mcp", {
  onElicit: (request) => {
    console.log(request.message); // "Where should api run?"
    return { action: "accept", content: { region: "eu-west-1" } };
  },
});
console.log((await client.callTool("add", { a: 2, b: 3 })).content);
console.log((await client.callTool("provision", { service: "api" })).content);
await client.close();
