import { describe, expect, it } from "vitest";
import { HttpError, statusForError } from "./http-errors.js";

describe("statusForError", () => {
  it.each([
    [-32700, false, 400],
    [-32600, false, 400],
    [-32020, false, 400],
    [-32021, false, 400],
    [-32021, true, 400],
    [-32022, true, 400],
    [-32601, true, 404],
    [-32601, false, 404],
    [-32602, true, 400],
    [-32602, false, 200],
    [-32603, false, 200],
    [1234, false, 200],
  ])("maps %i (refused before dispatch: %s) to %i", (code, refused, status) => {
    expect(statusForError(code, refused)).toBe(status);
  });
});

describe("HttpError", () => {
  it("keeps its status, headers and JSON-RPC code", () => {
    const error = new HttpError(401, "Unauthorized", {
      headers: { "www-authenticate": "Bearer" },
      rpcCode: -32600,
    });
    expect(error).toMatchObject({
      status: 401,
      headers: { "www-authenticate": "Bearer" },
      rpcCode: -32600,
      code: "ERR_HTTP_REFUSED",
    });
    expect(new HttpError(405, "x").headers).toEqual({});
  });
});
