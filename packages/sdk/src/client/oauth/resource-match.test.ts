import { describe, expect, it } from "vitest";
import { resourceCovers } from "./resource-match.js";

describe("resourceCovers", () => {
  it("accepts the endpoint itself, with or without a trailing slash", () => {
    expect(resourceCovers("https://mcp.example/mcp", "https://mcp.example/mcp")).toBe(true);
    expect(resourceCovers("https://mcp.example/mcp/", "https://mcp.example/mcp")).toBe(true);
  });

  it("accepts the origin and parent paths, as root metadata names them", () => {
    expect(resourceCovers("https://mcp.example", "https://mcp.example/mcp")).toBe(true);
    expect(resourceCovers("https://mcp.example/tenant", "https://mcp.example/tenant/mcp")).toBe(true);
    expect(resourceCovers("HTTPS://MCP.EXAMPLE:443/mcp", "https://mcp.example/mcp")).toBe(true);
  });

  it("refuses another host, scheme, port, a sibling path, a longer path and a fragment", () => {
    expect(resourceCovers("https://evil.example/mcp", "https://mcp.example/mcp")).toBe(false);
    expect(resourceCovers("http://mcp.example/mcp", "https://mcp.example/mcp")).toBe(false);
    expect(resourceCovers("https://mcp.example:8443/mcp", "https://mcp.example/mcp")).toBe(false);
    expect(resourceCovers("https://mcp.example/mc", "https://mcp.example/mcp")).toBe(false);
    expect(resourceCovers("https://mcp.example/mcp/admin", "https://mcp.example/mcp")).toBe(false);
    expect(resourceCovers("https://mcp.example/mcp#x", "https://mcp.example/mcp")).toBe(false);
    expect(resourceCovers("not a url", "https://mcp.example/mcp")).toBe(false);
  });
});
