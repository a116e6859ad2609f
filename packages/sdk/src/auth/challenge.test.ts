import { describe, expect, it } from "vitest";
import { bearerChallenge } from "./challenge.js";

describe("bearerChallenge", () => {
  it("names the scope and metadata without an error code when no token was sent", () => {
    expect(
      bearerChallenge({ scope: ["files:read"], resourceMetadata: "https://mcp.example/.well-known/x" }),
    ).toBe('Bearer scope="files:read", resource_metadata="https://mcp.example/.well-known/x"');
  });

  it("puts the error first and the description last for a step-up", () => {
    expect(
      bearerChallenge({
        error: "insufficient_scope",
        scope: ["a", "b"],
        resourceMetadata: "https://m/",
        description: "needs b",
      }),
    ).toBe(
      'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://m/", error_description="needs b"',
    );
  });

  it("keeps a description from breaking out of its quoted string or the header line", () => {
    const header = bearerChallenge({
      error: "invalid_token",
      description: 'bad "quote" \\ and\r\nX-Injected: 1 é',
    });
    expect(header).toBe(
      `Bearer error="invalid_token", error_description="bad 'quote' / and??X-Injected: 1 ?"`,
    );
  });

  it("omits an empty scope list", () => {
    expect(bearerChallenge({ scope: [] })).toBe("Bearer");
  });
});
