import { describe, expect, it } from "vitest";
import { bearerChallenge, parseBearerChallenge, parseChallenge } from "./challenge.js";

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

describe("parseBearerChallenge", () => {
  it("reads the parameters of a step-up challenge, unquoted and with the scope split", () => {
    expect(
      parseBearerChallenge(
        'Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://m/.well-known/oauth-protected-resource/mcp", error_description="needs write"',
      ),
    ).toEqual({
      error: "insufficient_scope",
      scope: ["files:read", "files:write"],
      resourceMetadata: "https://m/.well-known/oauth-protected-resource/mcp",
      description: "needs write",
      params: {
        error: "insufficient_scope",
        scope: "files:read files:write",
        resource_metadata: "https://m/.well-known/oauth-protected-resource/mcp",
        error_description: "needs write",
      },
    });
  });

  it("reads what bearerChallenge writes", () => {
    const header = bearerChallenge({
      error: "invalid_token",
      scope: ["a", "b"],
      resourceMetadata: "https://m/x",
    });
    expect(parseBearerChallenge(header)).toMatchObject({
      error: "invalid_token",
      scope: ["a", "b"],
      resourceMetadata: "https://m/x",
    });
  });

  it("keeps commas and escaped quotes inside quoted strings, and takes unquoted tokens", () => {
    expect(parseBearerChallenge('Bearer error_description="a, \\"b\\"", error=invalid_token')).toMatchObject({
      description: 'a, "b"',
      error: "invalid_token",
    });
  });

  it("finds the Bearer challenge among others, whatever the scheme's case", () => {
    expect(parseBearerChallenge('Basic realm="x", DPoP algs="ES256", bearer scope="s"')).toMatchObject({
      scope: ["s"],
      params: { scope: "s" },
    });
  });

  it("gives undefined without a Bearer challenge, and no scope for an empty one", () => {
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge(null)).toBeUndefined();
    expect(parseBearerChallenge("")).toBeUndefined();
    expect(parseBearerChallenge('Bearer scope=""')).toEqual({ params: { scope: "" } });
    expect(parseBearerChallenge("Bearer")).toEqual({ params: {} });
  });

  it("stops on malformed input instead of looping", () => {
    expect(parseBearerChallenge('Bearer ,,, @@ error="x')).toMatchObject({ error: "x" });
  });
});

describe("parseChallenge", () => {
  it("reads the challenge of the scheme asked for, whatever its case, and only that one", () => {
    const header =
      'Bearer scope="a", DPoP error="use_dpop_nonce", algs="ES256", resource_metadata="https://r"';
    expect(parseChallenge(header, "DPoP")).toMatchObject({
      error: "use_dpop_nonce",
      resourceMetadata: "https://r",
      params: { algs: "ES256" },
    });
    expect(parseChallenge(header, "bearer")?.scope).toEqual(["a"]);
    expect(parseBearerChallenge('DPoP error="use_dpop_nonce"')).toBeUndefined();
  });
});
