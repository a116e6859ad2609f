import { Client, MemoryResultCacheStore } from "@roundtrip/sdk";

const store = new MemoryResultCacheStore({ maxEntries: 500 });
const forUser = (user: string, token: string) =>
  new Client("http://localhost:3000/mcp", {
    http: { headers: { authorization: `Bearer ${token}` } },
    // One context per token: another user's private results are never served.
    cache: { store, authorizationContext: user },
  });
const ada = forUser("ada", "token-a");
await ada.listTools(); // from the server
await ada.listTools(); // from the store while fresh
await ada.listTools({ cache: "reload" }); // from the server again
