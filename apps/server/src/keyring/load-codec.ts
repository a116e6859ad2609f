import { randomBytes } from "node:crypto";
import type { KMSClientConfig } from "@aws-sdk/client-kms";
import type { Logger } from "@roundtrip/sdk/protocol";
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
 * The sealing library explains a KMS failure in its own terms (wrappedKeys[i], the endpoint, the
 * service); the operator set environment variables, so say which ones this server read.
 */
function inServerTerms(error: unknown, source: Extract<KeySourceConfig, { kind: "kms" }>): unknown {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== "ERR_KMS_KEY") return error;
  const endpoint =
    source.endpoint !== undefined
      ? `KMS_ENDPOINT=${source.endpoint}`
      : process.env.AWS_ENDPOINT_URL_KMS
        ? `AWS_ENDPOINT_URL_KMS=${process.env.AWS_ENDPOINT_URL_KMS}`
        : `the regional endpoint of AWS_REGION=${process.env.AWS_REGION ?? "(unset)"}`;
  const settings = [
    `KMS_WRAPPED_KEYS (${source.wrappedKeys.length} key${source.wrappedKeys.length === 1 ? "" : "s"}; wrappedKeys[i] is its i-th entry)`,
    `KMS_KEY_ID=${source.keyId ?? "(unset)"}`,
    endpoint,
    `encryption context service="${source.service}" from ${source.serviceFrom}`,
  ];
  return new Error(`${error.message} This server read: ${settings.join(", ")}.`, { cause: error });
}

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
      }).catch((error: unknown) => {
        throw inServerTerms(error, source);
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
