import type { KMSClient } from "@aws-sdk/client-kms";
import {
  adminClient,
  clientConfigFor,
  createKey,
  useDummyAwsEnvironment,
} from "@roundtrip/test-kms/kms-fixture";
import {
  type MotoServer,
  READY_WITHIN_MS,
  refusedPort,
  startMotoServer,
} from "@roundtrip/test-kms/moto-server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AesGcmRequestStateCodec } from "../src/aes-gcm-codec.js";
import { InvalidRequestState } from "../src/invalid-request-state.js";
import { createKmsRequestStateCodec } from "../src/kms/create-kms-codec.js";
import { generateWrappedDataKey } from "../src/kms/generate-wrapped-key.js";
import { runKeygen } from "../src/kms/keygen-command.js";
import { KmsKeyError } from "../src/kms/kms-key-error.js";
import { unwrapDataKeys } from "../src/kms/unwrap-data-keys.js";
import { RequestStateSecurity } from "../src/request-state-security.js";
import { capturedIo } from "./support/captured-io.js";

let moto: MotoServer;
let admin: KMSClient;

beforeAll(async () => {
  useDummyAwsEnvironment();
  moto = await startMotoServer();
  admin = adminClient(moto.url);
}, READY_WITHIN_MS + 10_000);

afterAll(async () => {
  admin?.destroy();
  await moto?.stop();
  vi.unstubAllEnvs();
});

const request = { method: "tools/call", target: "deploy", arguments: { env: "prod" } };
const context = { audience: "billing" };

async function mint(keyId: string, service: string): Promise<string> {
  const { wrappedKey } = await generateWrappedDataKey({
    keyId,
    service,
    clientConfig: clientConfigFor(moto.url),
  });
  return wrappedKey;
}

async function rejection(promise: Promise<unknown>): Promise<KmsKeyError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof KmsKeyError)) throw new Error(`expected a KmsKeyError, got ${String(error)}`);
  return error;
}

describe("KMS envelope codec against moto_server", () => {
  it("creates a key and alias, wraps a data key, unwraps it at startup, then seals and opens locally", async () => {
    const { alias } = await createKey(admin);
    const wrapped = await mint(alias, "billing");
    const codec = await createKmsRequestStateCodec({
      wrappedKeys: [wrapped],
      service: "billing",
      clientConfig: clientConfigFor(moto.url),
    });
    const policy = new RequestStateSecurity({ codec });

    const token = policy.seal("awaiting-confirm", request, context);

    expect(token.startsWith("kms1.")).toBe(true);
    expect(policy.open(token, request, context)).toBe("awaiting-confirm");
  });

  it("calls KMS once per wrapped key at startup and never per token", async () => {
    const { alias } = await createKey(admin);
    const wrappedKeys = [await mint(alias, "billing"), await mint(alias, "billing")];
    const client = adminClient(moto.url);
    const commands: string[] = [];
    client.middlewareStack.add(
      (next, handlerContext) => async (args) => {
        commands.push(String(handlerContext.commandName));
        return next(args);
      },
      { step: "initialize" },
    );
    const codec = await createKmsRequestStateCodec({ wrappedKeys, service: "billing", client });
    for (let i = 0; i < 200; i++) codec.unseal(codec.seal(Buffer.from(`round ${i}`)));

    expect(commands).toEqual(["DecryptCommand", "DecryptCommand"]);
    client.destroy();
  });

  it("rotates across two data keys: the first mints, both open, a dropped key's tokens are refused", async () => {
    const { alias } = await createKey(admin);
    const oldKey = await mint(alias, "billing");
    const newKey = await mint(alias, "billing");
    const start = (wrappedKeys: string[]) =>
      createKmsRequestStateCodec({
        wrappedKeys,
        service: "billing",
        clientConfig: clientConfigFor(moto.url),
      });
    const [phase1, phase2, phase3] = await Promise.all([
      start([oldKey, newKey]),
      start([newKey, oldKey]),
      start([newKey]),
    ]);
    const payload = Buffer.from("state");

    const oldToken = phase1.seal(payload);
    const newToken = phase2.seal(payload);

    expect(Buffer.from(phase2.unseal(oldToken))).toEqual(payload);
    expect(Buffer.from(phase1.unseal(newToken))).toEqual(payload);
    expect(Buffer.from(phase3.unseal(newToken))).toEqual(payload);
    expect(() => phase3.unseal(oldToken)).toThrow(new InvalidRequestState("unknown key"));
  });

  it("fails closed when the service name (encryption context) differs from the one the key was minted for", async () => {
    const { alias } = await createKey(admin);
    const wrapped = await mint(alias, "billing");

    const error = await rejection(
      createKmsRequestStateCodec({
        wrappedKeys: [wrapped],
        service: "payments",
        clientConfig: clientConfigFor(moto.url),
      }),
    );

    expect(error.kmsError).toBe("InvalidCiphertextException");
    expect(error.keyIndex).toBe(0);
    expect(error.message).toContain("wrappedKeys[0]");
    expect(error.message).toContain("service=payments");
    expect(error.message).not.toContain(wrapped);
  });

  it("names the failing key of a ring: a damaged second wrapped key stops startup", async () => {
    const { alias } = await createKey(admin);
    const good = await mint(alias, "billing");
    const damaged = Buffer.from(good, "base64");
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] ?? 0) ^ 1;

    const error = await rejection(
      createKmsRequestStateCodec({
        wrappedKeys: [good, damaged.toString("base64")],
        service: "billing",
        clientConfig: clientConfigFor(moto.url),
      }),
    );

    expect(error.keyIndex).toBe(1);
    expect(error.kmsError).toBe("InvalidCiphertextException");
  });

  it("fails closed with AccessDenied when the wrapped key belongs to another KMS key than keyId", async () => {
    const first = await createKey(admin);
    const second = await createKey(admin);
    const wrapped = await mint(first.alias, "billing");

    const error = await rejection(
      createKmsRequestStateCodec({
        wrappedKeys: [wrapped],
        service: "billing",
        keyId: second.alias,
        clientConfig: clientConfigFor(moto.url),
      }),
    );

    expect(error.kmsError).toBe("AccessDeniedException");
    expect(error.keyId).toBe(second.alias);
    expect(error.message).toContain(`KMS key ${second.alias}`);
    expect(error.message).toContain("kms:Decrypt");
  });

  it("fails closed, quickly, when the KMS endpoint is unreachable", async () => {
    const closed = `http://127.0.0.1:${await refusedPort()}`;
    const started = Date.now();

    const error = await rejection(
      createKmsRequestStateCodec({
        wrappedKeys: [Buffer.alloc(64, 1).toString("base64")],
        service: "billing",
        clientConfig: { ...clientConfigFor(closed), maxAttempts: 2 },
      }),
    );

    expect(error.kmsError).toBe("ECONNREFUSED");
    expect(error.message).toContain("unreachable");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("honours AWS_ENDPOINT_URL_KMS when no endpoint is configured", async () => {
    const { alias } = await createKey(admin);
    const wrapped = await mint(alias, "billing");
    vi.stubEnv("AWS_ENDPOINT_URL_KMS", moto.url);

    const codec = await createKmsRequestStateCodec({ wrappedKeys: [wrapped], service: "billing" });

    expect(codec.seal(Buffer.from("x")).startsWith("kms1.")).toBe(true);
  });

  it("unwrapDataKeys feeds the built-in ring (v1 tokens a Python server with the same keys reads)", async () => {
    const { alias } = await createKey(admin);
    const wrapped = await mint(alias, "billing");
    const keys = await unwrapDataKeys({
      wrappedKeys: [wrapped],
      service: "billing",
      clientConfig: clientConfigFor(moto.url),
    });
    const policy = new RequestStateSecurity({ keys });
    const kms = await createKmsRequestStateCodec({
      wrappedKeys: [wrapped],
      service: "billing",
      clientConfig: clientConfigFor(moto.url),
    });

    const token = policy.seal("s", request, context);

    expect(token.startsWith("v1.")).toBe(true);
    expect(keys[0]?.byteLength).toBe(32);
    expect(new AesGcmRequestStateCodec(keys).unseal(token).byteLength).toBeGreaterThan(0);
    // One data key, two formats: each codec refuses the other's tokens.
    expect(() => kms.unseal(token)).toThrow(new InvalidRequestState("malformed"));
    expect(() => policy.codec.unseal(`v1.${kms.seal(Buffer.from("x")).slice(5)}`)).toThrow(
      InvalidRequestState,
    );
  });

  it("the keygen command prints a wrapped key the codec starts with", async () => {
    const { alias } = await createKey(admin);
    const io = capturedIo();

    const code = await runKeygen(["--key-id", alias, "--service", "billing"], io, {
      clientConfig: clientConfigFor(moto.url),
    });

    expect(code).toBe(0);
    expect(io.out()).toMatch(/^[A-Za-z0-9+/]+=*\n$/);
    expect(io.err()).toContain('for service "billing"');
    const codec = await createKmsRequestStateCodec({
      wrappedKeys: [io.out().trim()],
      service: "billing",
      clientConfig: clientConfigFor(moto.url),
    });
    expect(Buffer.from(codec.unseal(codec.seal(Buffer.from("ok")))).toString()).toBe("ok");
  });

  it("the keygen command reports a missing KMS key with exit code 1", async () => {
    const io = capturedIo();

    const code = await runKeygen(["--key-id", "alias/roundtrip-missing", "--service", "billing"], io, {
      clientConfig: clientConfigFor(moto.url),
    });

    expect(code).toBe(1);
    expect(io.err()).toContain("NotFoundException");
    expect(io.err()).toContain("alias/roundtrip-missing");
  });
});
