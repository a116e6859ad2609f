import { Client } from "@roundtrip/sdk";
import type { SampleCallback } from "@roundtrip/sdk/client";

// What onSample returns is a CreateMessageResult: the model's message (role and content), the model's
// name and why it stopped. The client checks it against the schema before sending it.
const onSample: SampleCallback = async (params, { key }) => {
  const prompt = params.messages.map((message) => JSON.stringify(message.content)).join("\n");
  const text = await myModel(prompt, params.maxTokens); // your model, with the user's consent
  console.error(`answered sampling request ${key}`);
  return { role: "assistant", content: { type: "text", text }, model: "my-model", stopReason: "endTurn" };
};

const client = new Client("https://mcp.example.com/mcp", { onSample });
const prompt = await client.getPrompt("release-notes", { changes: "Faster rounds" });
console.log(prompt.messages);

declare function myModel(prompt: string, maxTokens: number): Promise<string>;
