import {
  DEFAULT_CLIENTS,
  DEFAULT_REDIRECT_URI,
  DevelopmentBrowser,
  firstPostForm,
  type LocalAuthServer,
  startLocalAuthServer,
} from "@roundtrip/local-auth";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeployerApi, startDeployerApi } from "../src/deployer/deployer-api.js";
import {
  OTHER_RESOURCE,
  PUBLIC_CALLBACK,
  PUBLIC_URL,
  serverEnvironment,
  viaInstance,
} from "./support/environment.js";
import { LeakWatch } from "./support/leak-watch.js";
import { mcpClient } from "./support/mcp-client.js";
import { type RunningServer, startServer } from "./support/running-server.js";

/**
 * The deploy tool's rollout through the downstream deployer API: the reference server exchanges its
 * caller's token at the local authorization server (RFC 8693) for one with the deployer's audience,
 * and the deployer verifies issuer and audience, so the caller's own token is refused there.
 */

const DEPLOYER_AUDIENCE = "https://deployer.roundtrip.test";

let as: LocalAuthServer;
let deployer: DeployerApi;
let app: RunningServer;
let aliceToken: string;
const watch = new LeakWatch();

beforeAll(async () => {
  as = await startLocalAuthServer({
    resource: [PUBLIC_URL, OTHER_RESOURCE],
    clients: DEFAULT_CLIENTS.map((client) =>
      client.kind === "interactive"
        ? { ...client, redirectUris: [DEFAULT_REDIRECT_URI, PUBLIC_CALLBACK] }
        : client,
    ),
    downstreams: [{ audience: DEPLOYER_AUDIENCE, clients: ["mcp-server-exchange"], scopes: [] }],
  });
  deployer = await startDeployerApi({ issuer: as.issuer, audience: DEPLOYER_AUDIENCE });
  app = await startServer(
    serverEnvironment(as, {
      DEPLOYER_URL: deployer.url,
      DEPLOYER_AUDIENCE,
      OAUTH_EXCHANGE_CLIENT_ID: "mcp-server-exchange",
      OAUTH_EXCHANGE_CLIENT_SECRET: "mcp-server-exchange-secret",
    }),
  );
  ({ accessToken: aliceToken } = await as.authorizationCodeToken("alice", "mcp:tools mcp:deploy"));
});

afterAll(async () => {
  await app?.close();
  await deployer?.close();
  await as?.close();
});

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
});

describe("deploy rollout through the downstream deployer API", () => {
  it("rolls an approved release out with a token exchanged for alice, which the deployer accepts", async () => {
    let opened: (url: string) => void = () => {};
    const firstUrl = new Promise<string>((resolve) => {
      opened = resolve;
    });
    const client = mcpClient(app.url, aliceToken, watch, {
      inputRequiredMaxRounds: 200,
      onElicit: (params) => {
        if (params.mode !== "url") return { action: "accept", content: { confirm: true } };
        opened(params.url);
        return { action: "accept" };
      },
    });
    const done = client.callTool("deploy", { service: "api", env: "staging" });
    // Handled at once: a call that fails before its page opens fails this test, not the whole run.
    done.catch(() => {});
    try {
      const url = await Promise.race([
        firstUrl,
        done.then(() => {
          throw new Error("the deploy call ended before it asked alice to approve the release");
        }),
      ]);
      const path = new URL(url).pathname;
      const release = path.split("/").pop() ?? "";
      const alice = new DevelopmentBrowser("alice");
      const page = await alice.visit(`${app.origin}${path}/sign-in`, app.origin, viaInstance(app.origin));
      const csrf = firstPostForm(page.html)?.fields.csrf ?? "";
      expect((await alice.fetch(`${app.origin}${path}/approve`, form({ csrf }))).status).toBe(200);

      const result = await done;
      expect(result.content.map((block) => (block as { text?: string }).text).join("")).toBe(
        `Deployed ${release} of api to staging`,
      );
      // The deployer saw alice as the subject and the reference server's exchange client as the client.
      expect(deployer.rollouts).toContainEqual({
        release,
        service: "api",
        env: "staging",
        subject: "alice",
        clientId: "mcp-server-exchange",
      });
    } finally {
      await client.close();
    }
  }, 120_000);

  it("refuses the caller's own token, sent on as if it were the deployer's", async () => {
    expect(decodeJwt(aliceToken).aud).toBe(PUBLIC_URL);
    const before = deployer.rollouts.length;
    const response = await fetch(`${deployer.url}/rollouts`, {
      method: "POST",
      headers: { authorization: `Bearer ${aliceToken}`, "content-type": "application/json" },
      body: JSON.stringify({ release: "rel-passthrough", service: "api", env: "staging" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    expect(((await response.json()) as { error_description: string }).error_description).toMatch(/aud/i);
    expect(deployer.rollouts.length).toBe(before);
  });
});
