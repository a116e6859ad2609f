import { randomBytes } from "node:crypto";
import type { KMSClientConfig } from "@aws-sdk/client-kms";
import type { Logger } from "@roundtrip/sdk";
import { AesGcmRequestStateCodec, type RequestStateCodec } from "@roundtrip/sealing";
import type { KeySourceConfig } from "../config/server-config.js";
import { readKeyFile } from "./key-file.js";

export interface LoadCodecOptions {
  source: KeySourceConfig;
  logger: Logger;
  /** Merged over the KMS client settings derived from the source (tests pass retries and timeouts). */
  kmsClientConfig?: KMSClientConfig;
}

const EPHEMERAL_WARNING =
  "requestState is sealed under an ephemeral key that lives in this process only: multi-round calls in flight fail after a restart and on every other instance. Set KMS_WRAPPED_KEYS (or REQUEST_STATE_KEY_FILE) for anything restarted or load-balanced";

/**
 * Builds the built-in AES-256-GCM ring (keys[0] mints, all open) from the configured source. The
 * `v1.` tokens it makes are the reference Python SDK's, so a mixed fleet sharing the keys interoperates.
 */
export async function loadCodec(options: LoadCodecOptions): Promise<RequestStateCodec> {
  const { source, logger } = options;
  switch (source.kind) {
    case "kms": {
      // Loaded on demand: a server without KMS never pays for the AWS SDK.
      const { unwrapDataKeys } = await import("@roundtrip/sealing/kms");
      const clientConfig: KMSClientConfig = {
        ...(source.endpoint === undefined ? {} : { endpoint: source.endpoint }),
        ...options.kmsClientConfig,
      };
      const keys = await unwrapDataKeys({
        wrappedKeys: source.wrappedKeys,
        service: source.service,
        keyId: source.keyId,
        clientConfig,
      });
      try {
        const codec = new AesGcmRequestStateCodec(keys);
        logger.info(
          { keySource: "kms", keyCount: keys.length, kmsService: source.service, kmsKeyId: source.keyId },
          "request-state keys unwrapped by KMS",
        );
        return codec;
      } finally {
        for (const key of keys) key.fill(0);
      }
    }
    case "file": {
      const file = await readKeyFile(source.path);
      if (file.readableByOthers) {
        logger.warn(
          { keySource: "file", path: source.path },
          "the request-state key file is readable by group or others; restrict it with chmod 600",
        );
      }
      logger.info(
        { keySource: "file", keyCount: file.keys.length, path: source.path },
        "request-state keys read from file",
      );
      return new AesGcmRequestStateCodec(file.keys);
    }
    case "ephemeral": {
      const key = randomBytes(32);
      try {
        logger.warn({ keySource: "ephemeral" }, EPHEMERAL_WARNING);
        return new AesGcmRequestStateCodec([key]);
      } finally {
        key.fill(0);
      }
    }
  }
}
