import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RandomSource } from "../../src/random-source.js";

// The reference Python SDK's vectors, copied verbatim into the package (see test/fixtures/README.md);
// resolved from this module so the tests find them from any working directory.
const VECTORS_PATH = fileURLToPath(new URL("../fixtures/request-state-v1.json", import.meta.url));

/** A secret as the vectors spell it: UTF-8 text or hex. */
export interface VectorSecret {
  readonly secret_text?: string;
  readonly secret_hex?: string;
}

export interface VectorParams {
  readonly name?: string;
  readonly uri?: string;
  readonly arguments?: unknown;
}

export interface RequestStateVectors {
  readonly kdf: readonly (VectorSecret & { readonly aes_key_hex: string; readonly kid_hex: string })[];
  readonly seal: readonly (VectorSecret & {
    readonly nonce_hex: string;
    readonly payload_hex: string;
    readonly token: string;
  })[];
  readonly unseal_reject: {
    readonly ring: readonly VectorSecret[];
    readonly valid_token: string;
    readonly valid_payload_hex: string;
    readonly cases: readonly { readonly name: string; readonly token: string; readonly reason: string }[];
  };
  readonly rotation: {
    readonly old: VectorSecret;
    readonly new: VectorSecret;
    readonly "token_minted_under_[old]": string;
    readonly "token_minted_under_[new,old]": string;
    readonly expect: Readonly<Record<string, boolean>>;
  };
  readonly args_digest: readonly {
    readonly arguments: unknown;
    readonly canonical_json: string;
    readonly digest: string;
  }[];
  readonly args_digest_resources: { readonly digest: string };
  readonly principal: readonly {
    readonly components: readonly [string, string | null, string | null];
    readonly principal: string;
    readonly salt_hex: string;
    readonly claim: string;
  }[];
  readonly envelope: readonly {
    readonly name: string;
    readonly keys: readonly VectorSecret[];
    readonly audience: string | null;
    readonly ttl: number;
    readonly minted_at: number;
    readonly method: string;
    readonly params: VectorParams;
    readonly principal: string | null;
    readonly state: string;
    readonly nonce_hex: string;
    readonly salt_hex: string | null;
    readonly token: string;
    readonly payload: string;
  }[];
  readonly verify: readonly {
    readonly name: string;
    readonly token: string;
    readonly keys: readonly VectorSecret[];
    readonly audience: string | null;
    readonly method: string;
    readonly params: VectorParams;
    readonly principal: string | null;
    readonly now: number;
    readonly expect: "accept" | "reject";
    readonly state?: string;
  }[];
  readonly frozen_error: unknown;
}

export function loadVectors(): RequestStateVectors {
  return JSON.parse(readFileSync(VECTORS_PATH, "utf8")) as RequestStateVectors;
}

export function secretBytes(secret: VectorSecret): Buffer {
  if (secret.secret_hex !== undefined) return Buffer.from(secret.secret_hex, "hex");
  if (secret.secret_text !== undefined) return Buffer.from(secret.secret_text, "utf8");
  throw new Error("vector secret has neither secret_text nor secret_hex");
}

/** A random source that returns the given bytes once per call: for pinned nonces and salts only. */
export function pinnedBytes(hex: string): RandomSource {
  const bytes = Buffer.from(hex, "hex");
  return (size) => {
    if (size !== bytes.length)
      throw new Error(`pinned source holds ${bytes.length} bytes, asked for ${size}`);
    return bytes;
  };
}

/** The request a vector's params describe: tools and prompts by name, resources by URI. */
export function vectorRequest(method: string, params: VectorParams) {
  const target = params.name ?? params.uri;
  if (target === undefined) throw new Error("vector params name no target");
  return { method, target, arguments: params.arguments };
}
