/** What went wrong with a KMS call, in words an operator can act on. */
export interface KmsFailure {
  /** The AWS error name (`AccessDeniedException`, `InvalidCiphertextException`, ...) or network code. */
  readonly cause: string;
  readonly advice: string;
}

/** The situation a failure is explained in: never any key material. */
export interface KmsFailureContext {
  readonly permission: "kms:Decrypt" | "kms:GenerateDataKey";
  readonly service: string;
  readonly keyId: string | undefined;
  /**
   * The endpoint the client was given (`clientConfig.endpoint`), which overrides `AWS_ENDPOINT_URL_KMS`:
   * the advice must name the setting that was actually used.
   */
  readonly endpoint?: string | undefined;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
]);

export function explainKmsFailure(error: unknown, context: KmsFailureContext): KmsFailure {
  const { name, code, message } = errorFields(error);
  if (NETWORK_CODES.has(code) || name === "TimeoutError") {
    return { cause: code || name, advice: unreachableAdvice(context.endpoint) };
  }
  if (name === "CredentialsProviderError") {
    return {
      cause: name,
      advice:
        "No AWS credentials were found: provide them through the standard chain (environment, shared config, instance or task role).",
    };
  }
  if (/region is missing/i.test(message)) {
    return {
      cause: "MissingRegion",
      advice: "Set AWS_REGION (or clientConfig.region) to the region of the KMS key.",
    };
  }
  return { cause: name || "Error", advice: serviceAdvice(name, context) };
}

function serviceAdvice(name: string, { permission, service, keyId }: KmsFailureContext): string {
  const key = keyId ?? "<key-id>";
  switch (name) {
    case "AccessDeniedException":
      return `This identity may not use the key for this wrapped key: grant ${permission} on the KMS key (key policy or IAM) for the encryption context service=${service}, and check that keyId names the key it was minted under.`;
    case "InvalidCiphertextException":
      return `The wrapped key is damaged, or was minted for another service name (the encryption context must be service=${service}) or under another KMS key. Check the service name, or mint a new wrapped key with: roundtrip-kms-keygen --key-id ${key} --service ${service}`;
    case "IncorrectKeyException":
      return `The wrapped key was minted under a different KMS key than ${key}: pass the keyId it was minted under, or mint a new wrapped key.`;
    case "DisabledException":
      return `The KMS key is disabled: enable it (aws kms enable-key --key-id ${key}) or rotate to a wrapped key minted under an enabled key.`;
    case "KMSInvalidStateException":
      return `The KMS key is not usable (pending deletion or import): cancel the deletion (aws kms cancel-key-deletion --key-id ${key}) or rotate to another key.`;
    case "NotFoundException":
      return `The KMS key ${key} does not exist in this account and region: check the key id or alias and AWS_REGION.`;
    case "ThrottlingException":
    case "LimitExceededException":
      return "KMS throttled the request: retry startup with backoff, or raise the KMS request quota.";
    case "KeyUnavailableException":
    case "DependencyTimeoutException":
    case "KMSInternalException":
      return "KMS could not serve the request right now: retry startup.";
    default:
      return `Check the KMS key, its policy (${permission}) and the wrapped key.`;
  }
}

function unreachableAdvice(configured: string | undefined): string {
  if (configured !== undefined) {
    return `KMS is unreachable at the configured endpoint ${configured}: check that it is running and the network path to it.`;
  }
  const override = process.env.AWS_ENDPOINT_URL_KMS;
  const where = override ? `the endpoint AWS_ENDPOINT_URL_KMS=${override}` : "the regional KMS endpoint";
  return `KMS is unreachable at ${where}: check the network path, AWS_REGION, and AWS_ENDPOINT_URL_KMS when using a local emulator.`;
}

function errorFields(error: unknown): { name: string; code: string; message: string } {
  if (typeof error !== "object" || error === null) return { name: "", code: "", message: String(error) };
  const fields = error as { name?: unknown; code?: unknown; message?: unknown };
  return {
    name: typeof fields.name === "string" ? fields.name : "",
    code: typeof fields.code === "string" ? fields.code : "",
    message: typeof fields.message === "string" ? fields.message : "",
  };
}
