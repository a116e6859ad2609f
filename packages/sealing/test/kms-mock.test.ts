import {
  DecryptCommand,
  DisabledException,
  GenerateDataKeyCommand,
  KMSClient,
  KMSInvalidStateException,
  KMSServiceException,
} from "@aws-sdk/client-kms";
import { useDummyAwsEnvironment } from "@roundtrip/test-kms/kms-fixture";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createKmsRequestStateCodec, type KmsRequestStateCodecOptions } from "../src/kms/create-kms-codec.js";
import { generateWrappedDataKey } from "../src/kms/generate-wrapped-key.js";
import { runKeygen } from "../src/kms/keygen-command.js";
import { KmsKeyError } from "../src/kms/kms-key-error.js";
import { unwrapDataKeys } from "../src/kms/unwrap-data-keys.js";
import { capturedIo } from "./support/captured-io.js";

// Failure branches a local emulator cannot produce (moto does not enforce DisableKey, throttling or
// IAM). Everything else about KMS is tested against a real moto_server in kms-moto.test.ts.

const WRAPPED = [Buffer.alloc(40, 1).toString("base64"), Buffer.alloc(40, 2).toString("base64")];
const metadata = { $metadata: {} };

function serviceError(name: string, message: string) {
  return new KMSServiceException({ name, message, $fault: "client", ...metadata });
}

let client: KMSClient;
let kms: ReturnType<typeof mockClient>;

beforeEach(() => {
  useDummyAwsEnvironment();
  client = new KMSClient({ region: "us-east-1" });
  kms = mockClient(client);
});

afterEach(() => {
  kms.restore();
  client.destroy();
  vi.unstubAllEnvs();
});

async function startupError(wrappedKeys = WRAPPED.slice(0, 1), keyId?: string): Promise<KmsKeyError> {
  const outcome = await createKmsRequestStateCodec({ wrappedKeys, service: "billing", keyId, client }).then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof KmsKeyError)) throw new Error(`expected KmsKeyError, got ${String(outcome)}`);
  return outcome;
}

describe("KMS startup failures (mocked client)", () => {
  it("AccessDenied names the key and the permission to grant", async () => {
    kms.on(DecryptCommand).rejects(serviceError("AccessDeniedException", "not authorized"));
    const error = await startupError(WRAPPED.slice(0, 1), "alias/roundtrip");
    expect(error.kmsError).toBe("AccessDeniedException");
    expect(error.message).toMatch(/wrappedKeys\[0\] \(KMS key alias\/roundtrip\)/);
    expect(error.message).toContain("grant kms:Decrypt");
    expect(error.cause).toBeInstanceOf(KMSServiceException);
  });

  it("a disabled KMS key fails closed and says how to re-enable it", async () => {
    kms.on(DecryptCommand).rejects(new DisabledException({ message: "key is disabled", ...metadata }));
    const error = await startupError(WRAPPED.slice(0, 1), "alias/roundtrip");
    expect(error.kmsError).toBe("DisabledException");
    expect(error.message).toContain("aws kms enable-key --key-id alias/roundtrip");
  });

  it("a key pending deletion fails closed", async () => {
    kms
      .on(DecryptCommand)
      .rejects(new KMSInvalidStateException({ message: "pending deletion", ...metadata }));
    expect((await startupError()).message).toContain("cancel-key-deletion");
  });

  it("throttling fails closed with a retry hint", async () => {
    kms.on(DecryptCommand).rejects(serviceError("ThrottlingException", "Rate exceeded"));
    const error = await startupError();
    expect(error.kmsError).toBe("ThrottlingException");
    expect(error.message).toContain("retry startup");
  });

  it("missing credentials are explained", async () => {
    kms
      .on(DecryptCommand)
      .rejects(Object.assign(new Error("Could not load credentials"), { name: "CredentialsProviderError" }));
    expect((await startupError()).message).toContain("No AWS credentials");
  });

  it("a failure of the second key names wrappedKeys[1] and wipes the key already unwrapped", async () => {
    const first = Buffer.alloc(32, 7);
    kms
      .on(DecryptCommand)
      .resolvesOnce({ Plaintext: first })
      .rejectsOnce(serviceError("AccessDeniedException", "no"));
    const error = await startupError(WRAPPED);
    expect(error.keyIndex).toBe(1);
    expect(first.every((byte) => byte === 0)).toBe(true);
  });

  it("a data key of the wrong length is refused", async () => {
    kms.on(DecryptCommand).resolves({ Plaintext: Buffer.alloc(16, 1) });
    expect((await startupError()).kmsError).toBe("WrongKeyLength");
  });
});

describe("KMS calls (mocked client)", () => {
  it("sends one Decrypt per wrapped key with the service encryption context and keyId, then none per token", async () => {
    kms
      .on(DecryptCommand)
      .callsFake(() => ({ Plaintext: Buffer.alloc(32, kms.commandCalls(DecryptCommand).length) }));
    const codec = await createKmsRequestStateCodec({
      wrappedKeys: WRAPPED,
      service: "billing",
      keyId: "alias/x",
      client,
    });
    for (let i = 0; i < 500; i++) codec.unseal(codec.seal(Buffer.from("payload")));

    const calls = kms.commandCalls(DecryptCommand);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.args[0].input).toEqual({
      CiphertextBlob: Buffer.from(WRAPPED[0] ?? "", "base64"),
      EncryptionContext: { service: "billing" },
      KeyId: "alias/x",
    });
    expect(kms.calls()).toHaveLength(2);
  });

  it("unwrapDataKeys returns the raw keys in order", async () => {
    kms
      .on(DecryptCommand)
      .resolvesOnce({ Plaintext: Buffer.alloc(32, 1) })
      .resolvesOnce({ Plaintext: Buffer.alloc(32, 2) });
    const keys = await unwrapDataKeys({ wrappedKeys: WRAPPED, service: "billing", client });
    expect(keys.map((key) => key[0])).toEqual([1, 2]);
  });

  it("generateWrappedDataKey asks for AES_256 under the service context and wipes the plaintext", async () => {
    const plaintext = Buffer.alloc(32, 9);
    kms
      .on(GenerateDataKeyCommand)
      .resolves({ Plaintext: plaintext, CiphertextBlob: Buffer.from("wrapped"), KeyId: "arn:k" });
    const minted = await generateWrappedDataKey({ keyId: "alias/x", service: "billing", client });
    expect(minted).toEqual({ wrappedKey: Buffer.from("wrapped").toString("base64"), keyArn: "arn:k" });
    expect(kms.commandCalls(GenerateDataKeyCommand)[0]?.args[0].input).toEqual({
      KeyId: "alias/x",
      KeySpec: "AES_256",
      EncryptionContext: { service: "billing" },
    });
    expect(plaintext.every((byte) => byte === 0)).toBe(true);
  });

  it("the keygen command reports AccessDenied on GenerateDataKey", async () => {
    kms.on(GenerateDataKeyCommand).rejects(serviceError("AccessDeniedException", "no"));
    const io = capturedIo();
    const code = await runKeygen(["--key-id", "alias/x", "--service", "billing"], io, { client });
    expect(code).toBe(1);
    expect(io.err()).toContain("grant kms:GenerateDataKey");
  });
});

describe("KMS options are checked before any call", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["no wrapped keys", { wrappedKeys: [], service: "billing" }, /at least one wrapped data key/],
    ["not base64", { wrappedKeys: ["not base64!"], service: "billing" }, /wrappedKeys\[0\] is not a base64/],
    [
      "repeated key",
      { wrappedKeys: [WRAPPED[0], WRAPPED[0]], service: "billing" },
      /wrappedKeys\[1\] repeats/,
    ],
    ["no service", { wrappedKeys: WRAPPED, service: "" }, /service must be/],
  ];

  it.each(cases)("%s", async (_, options, message) => {
    const invalid = { ...options, client } as unknown as KmsRequestStateCodecOptions;
    await expect(createKmsRequestStateCodec(invalid)).rejects.toThrow(message);
    expect(kms.calls()).toHaveLength(0);
  });

  it("keygen usage errors exit with 2 and print the usage", async () => {
    const io = capturedIo();
    const code = await runKeygen(["--service", "billing"], io);
    expect(code).toBe(2);
    expect(io.err()).toContain("Usage: roundtrip-kms-keygen");
    expect(io.out()).toBe("");
  });
});
