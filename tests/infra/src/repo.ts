import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const run = promisify(execFile);

/** The repository root: the build context of the image and the base of every path in the templates. */
export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

export const repoPath = (...segments: string[]) => join(repoRoot, ...segments);

export const readRepoFile = (...segments: string[]) => readFile(repoPath(...segments), "utf8");

/** The variables apps/server/.env.example documents: every one the server reads. */
export async function documentedServerVariables(): Promise<Set<string>> {
  const text = await readRepoFile("apps", "server", ".env.example");
  return new Set([...text.matchAll(/^([A-Z0-9_]+)=/gm)].map((match) => match[1]!));
}

/** Read by the AWS SDK inside the server rather than by the server itself; .env.example names them. */
export const AWS_SDK_VARIABLES = new Set([
  "AWS_REGION",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_ENDPOINT_URL_KMS",
]);

/** A value with the shape roundtrip-kms-keygen prints (base64 of the KMS ciphertext blob). */
export const SAMPLE_WRAPPED_KEY = Buffer.alloc(184, 7).toString("base64");

/** Set by a template although the server does not read it: neither in .env.example nor the AWS SDK's. */
export async function undocumentedVariables(names: Iterable<string>): Promise<string[]> {
  const documented = await documentedServerVariables();
  return [...names].filter((name) => !documented.has(name) && !AWS_SDK_VARIABLES.has(name));
}
