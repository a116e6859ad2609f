import { describe, expect, it } from "vitest";
import { tokenSubject } from "./token-subject.js";

const jwt = (claims: unknown) =>
  ["eyJhbGciOiJub25lIn0", Buffer.from(JSON.stringify(claims)).toString("base64url"), "sig"].join(".");

describe("tokenSubject", () => {
  it("reads sub from a JWT, and gives nothing for opaque or malformed tokens", () => {
    expect(tokenSubject(jwt({ sub: "alice", scope: "mcp:tools" }))).toBe("alice");
    expect(tokenSubject(jwt({ scope: "mcp:tools" }))).toBeUndefined();
    expect(tokenSubject(jwt({ sub: 7 }))).toBeUndefined();
    expect(tokenSubject("opaque-token")).toBeUndefined();
    expect(tokenSubject("a.%%%.c")).toBeUndefined();
  });
});
