import { randomUUID } from "node:crypto";
import { CreateAliasCommand, CreateKeyCommand, KMSClient, type KMSClientConfig } from "@aws-sdk/client-kms";

/** moto accepts any signature, but the SDK insists on credentials and a region. */
export const EMULATOR_CREDENTIALS = { accessKeyId: "roundtrip-test", secretAccessKey: "roundtrip-test" };

export function clientConfigFor(endpoint: string): KMSClientConfig {
  return { endpoint, region: "us-east-1", maxAttempts: 2 };
}

/** A fresh symmetric KMS key with a unique alias, so users of one emulator never collide. */
export async function createKey(admin: KMSClient): Promise<{ keyId: string; alias: string }> {
  const created = await admin.send(new CreateKeyCommand({ Description: "roundtrip sealing test" }));
  const keyId = created.KeyMetadata?.KeyId;
  if (keyId === undefined) throw new Error("CreateKey returned no key id");
  const alias = `alias/roundtrip-test-${randomUUID()}`;
  await admin.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: keyId }));
  return { keyId, alias };
}

export function adminClient(endpoint: string): KMSClient {
  return new KMSClient(clientConfigFor(endpoint));
}
