import { jwtVerifier } from "@roundtrip/sdk/resource-server";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalAuthServer, startLocalAuthServer } from "../src/index.js";

const RESOURCE = "http://127.0.0.1:9/mcp";

let as: LocalAuthServer;

beforeAll(async () => {
  as = await startLocalAuthServer({ resource: RESOURCE });
});
afterAll(() => as?.close());

describe("signing key rotation at the authorization server", () => {
  it("picks up a newly published key for new tokens and keeps accepting tokens signed with the old one", async () => {
    const fetched: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      fetched.push(new URL(input instanceof Request ? input.url : input).pathname);
      return fetch(input, init);
    };
    // No cooldown: the refetch on an unknown kid happens at once instead of after jose's default 30 s.
    const verifier = jwtVerifier({
      issuer: as.issuer,
      audience: RESOURCE,
      fetch: recordingFetch,
      jwks: { cooldownMs: 0 },
    });

    const before = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    await expect(verifier.verify(before)).resolves.toMatchObject({ clientId: "mcp-machine" });
    expect(fetched).toEqual(["/.well-known/oauth-authorization-server", "/jwks"]);

    const added = await as.rotateSigningKey();
    const after = await as.clientCredentialsToken("mcp-machine", "mcp:tools");
    expect(decodeProtectedHeader(after).kid).toBe(added.kid);
    expect(decodeProtectedHeader(before).kid).not.toBe(added.kid);

    await expect(verifier.verify(after)).resolves.toMatchObject({ clientId: "mcp-machine" });
    expect(fetched.filter((path) => path === "/jwks")).toHaveLength(2);
    await expect(verifier.verify(before)).resolves.toMatchObject({ clientId: "mcp-machine" });
    expect(fetched.filter((path) => path === "/jwks")).toHaveLength(2);
  });
});
