// What the two-instance demo runs beside the servers: the KMS emulator with one key that wraps the
// fleet's data key, and one Redis. Provisioned the way the test suites provision them; where they
// cannot be had, the demo says why and runs one instance instead.
import { KMSClient, type KMSClientConfig } from "@aws-sdk/client-kms";
import { generateWrappedDataKey } from "@roundtrip/sealing/kms";
import { clientConfigFor, createKey, EMULATOR_CREDENTIALS } from "@roundtrip/test-kms/kms-admin";
import { type MotoServer, startMotoServer } from "@roundtrip/test-kms/moto-server";
import { ensureTool, RedisServer, ToolUnavailableError } from "@roundtrip/test-services";

export interface FleetServices {
  kms: {
    endpoint: string;
    keyAlias: string;
    /** The fleet's one data key, wrapped under that KMS key: what every instance unwraps at start. */
    wrappedKey: string;
  };
  redisUrl: string;
  close(): Promise<void>;
}

export type Provisioned = { kind: "fleet"; services: FleetServices } | { kind: "single"; reason: string };

/** The KMS client settings for the emulator: its endpoint and the dummy credentials it accepts. */
export function emulatorClientConfig(endpoint: string): KMSClientConfig {
  return { ...clientConfigFor(endpoint), credentials: EMULATOR_CREDENTIALS };
}

export async function provisionFleetServices(serverName: string): Promise<Provisioned> {
  try {
    await ensureTool("moto_server");
    await ensureTool("redis-server");
  } catch (error) {
    if (error instanceof ToolUnavailableError) return { kind: "single", reason: error.message };
    throw error;
  }
  let moto: MotoServer | undefined;
  let redis: RedisServer | undefined;
  try {
    moto = await startMotoServer();
    const admin = new KMSClient(emulatorClientConfig(moto.url));
    const { alias } = await createKey(admin).finally(() => admin.destroy());
    const { wrappedKey } = await generateWrappedDataKey({
      keyId: alias,
      service: serverName,
      clientConfig: emulatorClientConfig(moto.url),
    });
    redis = await RedisServer.start();
    const [started, cache] = [moto, redis];
    return {
      kind: "fleet",
      services: {
        kms: { endpoint: moto.url, keyAlias: alias, wrappedKey },
        redisUrl: redis.url,
        async close() {
          await cache.stop().catch(() => {});
          await started.stop().catch(() => {});
        },
      },
    };
  } catch (error) {
    await redis?.stop().catch(() => {});
    await moto?.stop().catch(() => {});
    throw error;
  }
}
