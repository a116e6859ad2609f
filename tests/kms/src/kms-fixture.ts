import { vi } from "vitest";
import { EMULATOR_CREDENTIALS } from "./kms-admin.js";

export { adminClient, clientConfigFor, createKey } from "./kms-admin.js";

/** The emulator's dummy credentials and a fixed region in the environment, for the test's duration. */
export function useDummyAwsEnvironment(): void {
  vi.stubEnv("AWS_REGION", "us-east-1");
  vi.stubEnv("AWS_ACCESS_KEY_ID", EMULATOR_CREDENTIALS.accessKeyId);
  vi.stubEnv("AWS_SECRET_ACCESS_KEY", EMULATOR_CREDENTIALS.secretAccessKey);
}
