import { describe, expect, it } from "vitest";
import { authorizationCodeFrom, checkResponseIssuer } from "./authorization-response.js";
import type { OAuthError } from "./errors.js";

const issuer = "https://as.example";
const expected = { issuer, issRequired: true, state: "s1" };
const params = (fields: Record<string, string>) => new URLSearchParams(fields);

function failure(run: () => unknown): OAuthError {
  try {
    run();
  } catch (error) {
    return error as OAuthError;
  }
  throw new Error("expected a refusal");
}

describe("authorizationCodeFrom", () => {
  it("returns the code when iss and state match", () => {
    const callback = authorizationCodeFrom(params({ code: "c", state: "s1", iss: issuer }), expected);
    expect(callback.get("code")).toBe("c");
  });

  it("compares iss as an exact string: no trailing slash, case or port normalization", () => {
    for (const iss of [
      `${issuer}/`,
      "HTTPS://as.example",
      "https://as.example:443",
      "https://evil.example",
    ]) {
      expect(
        failure(() => authorizationCodeFrom(params({ code: "c", state: "s1", iss }), expected)).code,
      ).toBe("authorization_response");
    }
  });

  it("requires iss when the server advertises it, and checks one it sends unadvertised", () => {
    expect(
      failure(() => authorizationCodeFrom(params({ code: "c", state: "s1" }), expected)).message,
    ).toMatch(/no iss parameter/);
    const unadvertised = { ...expected, issRequired: false };
    expect(authorizationCodeFrom(params({ code: "c", state: "s1" }), unadvertised).get("code")).toBe("c");
    expect(() =>
      authorizationCodeFrom(params({ code: "c", state: "s1", iss: "https://evil.example" }), unadvertised),
    ).toThrow(/mix-up/);
  });

  it("does not act on the error fields of a response from another issuer", () => {
    const refused = failure(() =>
      authorizationCodeFrom(
        params({ error: "access_denied", state: "s1", iss: "https://evil.example" }),
        expected,
      ),
    );
    expect(refused.code).toBe("authorization_response");
  });

  it("refuses a state mismatch, reports an error response, and a response with neither", () => {
    expect(
      failure(() => authorizationCodeFrom(params({ code: "c", state: "s2", iss: issuer }), expected)).message,
    ).toMatch(/state does not match/);
    const denied = failure(() =>
      authorizationCodeFrom(
        params({ error: "access_denied", error_description: "user said no", state: "s1", iss: issuer }),
        expected,
      ),
    );
    expect(denied.code).toBe("access_denied");
    expect(denied.oauthError).toBe("access_denied");
    expect(denied.message).toContain("user said no");
    expect(
      failure(() => authorizationCodeFrom(params({ state: "s1", iss: issuer }), expected)).message,
    ).toMatch(/neither a code/);
  });
});

describe("checkResponseIssuer", () => {
  it("checks iss without looking at state, code or error", () => {
    expect(() => checkResponseIssuer(params({ iss: issuer }), expected)).not.toThrow();
    expect(() => checkResponseIssuer(params({ state: "other", iss: issuer }), expected)).not.toThrow();
    expect(failure(() => checkResponseIssuer(params({ iss: `${issuer}/`, code: "c" }), expected)).code).toBe(
      "authorization_response",
    );
    expect(failure(() => checkResponseIssuer(params({ code: "c" }), expected)).message).toMatch(
      /no iss parameter/,
    );
    expect(() => checkResponseIssuer(params({ code: "c" }), { issuer, issRequired: false })).not.toThrow();
  });
});
