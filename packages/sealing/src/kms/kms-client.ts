import { KMSClient, type KMSClientConfig } from "@aws-sdk/client-kms";

/** Where KMS calls go. Both are optional: by default a client is built from the standard AWS chain. */
export interface KmsClientOptions {
  /** A ready client (its retries and timeouts are used as they are). Not destroyed afterwards. */
  readonly client?: KMSClient;
  /**
   * Settings for the client built when `client` is omitted. Region and credentials come from the
   * standard AWS chain; the endpoint from `AWS_ENDPOINT_URL_KMS` (e.g. a local emulator), which the
   * AWS SDK reads itself.
   */
  readonly clientConfig?: KMSClientConfig;
}

/**
 * Startup must fail fast rather than hang: a handful of attempts, and a request timeout that really
 * throws (the AWS SDK only logs a warning by default).
 */
const STARTUP_DEFAULTS: KMSClientConfig = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 3_000, requestTimeout: 10_000, throwOnRequestTimeout: true },
};

/** Runs `use` with the caller's client, or with a bounded one built for this call and destroyed after. */
export async function withKmsClient<T>(
  options: KmsClientOptions,
  use: (client: KMSClient) => Promise<T>,
): Promise<T> {
  if (options.client !== undefined) return use(options.client);
  const client = new KMSClient({ ...STARTUP_DEFAULTS, ...options.clientConfig });
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}

/** The endpoint the caller configured for the client built here, as text; undefined when none was. */
export function endpointOf(options: KmsClientOptions): string | undefined {
  const endpoint = options.client === undefined ? options.clientConfig?.endpoint : undefined;
  if (typeof endpoint === "string") return endpoint;
  return endpoint instanceof URL ? endpoint.href : undefined;
}
