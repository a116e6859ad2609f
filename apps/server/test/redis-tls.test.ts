import { randomBytes } from "node:crypto";
import type { Logger } from "@roundtrip/sdk/protocol";
import { AesGcmRequestStateCodec } from "@roundtrip/sealing";
import { freePort, type PrivateCa, privateCa, RedisServer } from "@roundtrip/test-services";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { redisState, type SharedState } from "../src/state/shared-state.js";

/**
 * The fleet's Redis over TLS, with a certificate a private CA signed: trusted through REDIS_TLS_CA_FILE
 * (the config's caFile), refused without it or with another CA, each refusal saying which setting to
 * change. A real redis-server serves TLS on its tls-port beside the plaintext port its start waits on.
 */

let ca: PrivateCa;
let otherCa: PrivateCa;
let redis: RedisServer;
let tlsUrl: string;
const states: SharedState[] = [];

beforeAll(async () => {
  [ca, otherCa] = await Promise.all([privateCa(), privateCa()]);
  const tlsPort = await freePort();
  redis = await RedisServer.start({
    config: [
      ...["--tls-port", String(tlsPort), "--tls-cert-file", ca.certFile, "--tls-key-file", ca.keyFile],
      ...["--tls-ca-cert-file", ca.caFile, "--tls-auth-clients", "no"],
    ],
  });
  tlsUrl = `rediss://127.0.0.1:${tlsPort}`;
}, 120_000);

afterEach(async () => {
  for (const state of states.splice(0)) await state.close();
});

afterAll(async () => {
  await redis?.stop();
  await ca?.remove();
  await otherCa?.remove();
});

/** A logger that keeps what is logged at warn, fields and message, as the server's log would show them. */
class RecordingLogger implements Logger {
  readonly warnings: Record<string, unknown>[] = [];
  debug(): void {}
  info(): void {}
  warn(fields: Record<string, unknown>, msg: string): void {
    this.warnings.push({ ...fields, msg });
  }
  error(): void {}
}

async function open(
  caFile: string | undefined,
  logger: Logger = new RecordingLogger(),
): Promise<SharedState> {
  const codec = new AesGcmRequestStateCodec([randomBytes(32)]);
  const state = await redisState({ url: tlsUrl, ...(caFile === undefined ? {} : { caFile }) }, logger, codec);
  states.push(state);
  return state;
}

describe("the fleet's Redis over TLS with a private CA", () => {
  it("is trusted through REDIS_TLS_CA_FILE: the store's guarantee holds and readiness says ready", async () => {
    const state = await open(ca.caFile);
    expect(state.description).toMatchObject({ redisTls: "yes" });
    await state.requireGuarantee();
    await vi.waitFor(async () => expect(await state.readiness()).toMatchObject({ ready: true }), {
      timeout: 60_000,
      interval: 50,
    });
  });

  it.each([
    [
      "no CA given",
      undefined,
      /not signed by a CA this server trusts; for a private CA, set REDIS_TLS_CA_FILE/,
    ],
    [
      "another CA given",
      "other",
      /not signed by the CA in REDIS_TLS_CA_FILE \(.*\); point it at the PEM file/,
    ],
  ])(
    "is refused with %s, the log naming the setting, and readiness says not ready",
    async (_, which, reason) => {
      const logger = new RecordingLogger();
      const state = await open(which === undefined ? undefined : otherCa.caFile, logger);
      await vi.waitFor(() => expect(logger.warnings.length).toBeGreaterThan(0), {
        timeout: 60_000,
        interval: 50,
      });
      expect(logger.warnings[0]).toMatchObject({ redisTls: "yes", reason: expect.stringMatching(reason) });
      expect(await state.readiness()).toMatchObject({ ready: false });
    },
  );
});
