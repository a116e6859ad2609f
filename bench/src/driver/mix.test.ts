import { describe, expect, it } from "vitest";
import type { PostClient } from "./http-client.js";
import { mixedFlow, parseMix } from "./mix.js";

describe("flow mix", () => {
  it("parses weights and refuses unknown kinds", () => {
    expect(parseMix("greet=3, add=1")).toEqual({ greet: 3, add: 1 });
    expect(() => parseMix("greet=1,gret=2")).toThrow(/unknown flow kind "gret"/);
  });

  it("spreads kinds in proportion to their weights", async () => {
    const seen: string[] = [];
    const client: PostClient = {
      post: async (message) => {
        seen.push(message.headers["mcp-method"] === "tools/list" ? "list" : "call");
        throw new Error("stop after the first round");
      },
      open: async () => {
        throw new Error("these flows only post");
      },
      close: () => {},
    };
    const flow = mixedFlow({ list: 1, add: 3 });
    for (let seq = 0; seq < 4000; seq++) await flow(client, seq).catch(() => undefined);
    const lists = seen.filter((kind) => kind === "list").length;
    expect(lists / seen.length).toBeGreaterThan(0.2);
    expect(lists / seen.length).toBeLessThan(0.3);
  });
});
