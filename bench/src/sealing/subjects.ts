/**
 * What sealing costs per multi round-trip flow: one seal (round 1) and one open of that token
 * (round 2), on the same claims-sized payload, for each subject:
 *
 * - raw AEAD: node:crypto AES-256-GCM seal + open, nothing else (the floor any sealing pays);
 * - codec: `AesGcmRequestStateCodec` seal + unseal of the claims bytes (token framing, base64url,
 *   key ring around the same AEAD);
 * - full: `RequestStateSecurity` seal + open of a realistic state, request and identity (claims,
 *   arguments digest, principal hash, audience and expiry checks, the codec);
 * - in flight: the same, but each open is of the token sealed IN_FLIGHT flows earlier, as on a busy
 *   server: the per-process memo of recently minted principal claims no longer has it;
 * - envelope: the same policy over a codec that encrypts nothing (the bench servers' pass-through
 *   codec), which isolates everything but the cipher.
 *
 * `pnpm bench:sealing` prints all of them; `pnpm bench` measures raw, envelope and full in the same
 * run as the servers, so the server's extra CPU per flow can be read against them.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from "node:crypto";
import { AesGcmRequestStateCodec, RequestStateSecurity } from "@roundtrip/sealing";
import { passThroughCodec } from "../targets/pass-through-codec.js";

export const SUBJECT_NAMES = ["raw", "codec", "full", "in-flight", "envelope"] as const;
export type SubjectName = (typeof SUBJECT_NAMES)[number];

export interface Subject {
  readonly name: SubjectName;
  readonly label: string;
  /** One flow: a seal and the open of what it sealed. */
  readonly flow: () => unknown;
}

/**
 * More tokens than the policy remembers minting (1024), so each open pays for every check in full;
 * not many more, or the bench measures keeping thousands of tokens alive, which a server never does.
 */
export const IN_FLIGHT = 1280;

/** A resolver-style state of about 200 bytes, the typical size of a round's plaintext. */
export const STATE = JSON.stringify({
  v: 3,
  outcomes: {
    "tools.deploy:confirm": {
      action: "accept",
      data: { confirm: true, note: "ok" },
      q: "Jc2lGk2bXw9bT1Zy0fWm3Q",
    },
  },
  asked: {
    "tools.deploy:approver": "hQ0x7bL2kXc9bZr1mN4sVg",
    "tools.deploy:window": "a1B2c3D4e5F6g7H8i9J0kL",
  },
});
const request = {
  method: "tools/call",
  target: "deploy",
  arguments: { env: "prod", replicas: 3, region: "eu-west-1" },
};
const context = {
  audience: "billing",
  identity: { clientId: "mcp-web", issuer: "https://auth.example.com/", subject: "alice" },
};

/** The subjects and the sizes they work on; each is checked to round-trip before it is timed. */
export interface SealingSubjects {
  readonly subjects: readonly Subject[];
  /** Bytes of the claims envelope the codec and the raw AEAD encrypt. */
  readonly payloadBytes: number;
  readonly tokenChars: number;
}

/**
 * The floor: AES-256-GCM alone (cipher setup, encrypt, tag, then decrypt and verify). Its nonce is
 * a counter, so it pays nothing for randomness, and its output is left in pieces, unencoded.
 */
function rawAead(): (bytes: Uint8Array) => Buffer {
  const key = createSecretKey(randomBytes(32));
  const nonce = Buffer.alloc(12);
  let counter = 0;
  return (bytes) => {
    nonce.writeUInt32BE(++counter >>> 0, 8);
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    const ciphertext = cipher.update(bytes);
    cipher.final();
    const tag = cipher.getAuthTag();
    const decipher = createDecipheriv("aes-256-gcm", key, nonce);
    decipher.setAuthTag(tag);
    const plaintext = decipher.update(ciphertext);
    decipher.final();
    return plaintext;
  };
}

/** Seals round 1 of a new flow and opens round 2 of the flow sealed IN_FLIGHT flows ago. */
function inFlight(security: RequestStateSecurity): () => string {
  const tokens = Array.from({ length: IN_FLIGHT }, () => security.seal(STATE, request, context));
  let next = 0;
  return () => {
    const slot = next;
    next = (slot + 1) % IN_FLIGHT;
    const echoed = tokens[slot] ?? "";
    tokens[slot] = security.seal(STATE, request, context);
    return security.open(echoed, request, context);
  };
}

const roundTrip = (policy: RequestStateSecurity) => () =>
  policy.open(policy.seal(STATE, request, context), request, context);

/** `names` picks the subjects to build (all by default): the in-flight one keeps 1280 tokens alive. */
export function sealingSubjects(names: readonly SubjectName[] = SUBJECT_NAMES): SealingSubjects {
  const secret = randomBytes(32);
  const security = new RequestStateSecurity({ keys: [secret] });
  const envelopeOnly = new RequestStateSecurity({ codec: passThroughCodec });
  const codec = new AesGcmRequestStateCodec([secret]);
  const token = security.seal(STATE, request, context);
  /** Exactly the bytes RequestStateSecurity hands its codec: the claims envelope. */
  const payload = security.codec.unseal(token);
  const raw = rawAead();
  const build: Record<SubjectName, () => Subject> = {
    raw: () => ({ name: "raw", label: "raw AES-256-GCM (node:crypto)", flow: () => raw(payload) }),
    codec: () => ({
      name: "codec",
      label: "AesGcmRequestStateCodec",
      flow: () => codec.unseal(codec.seal(payload)),
    }),
    full: () => ({ name: "full", label: "RequestStateSecurity", flow: roundTrip(security) }),
    "in-flight": () => ({
      name: "in-flight",
      label: `RequestStateSecurity, ${IN_FLIGHT} in flight`,
      flow: inFlight(security),
    }),
    envelope: () => ({
      name: "envelope",
      label: "RequestStateSecurity, no cipher",
      flow: roundTrip(envelopeOnly),
    }),
  };
  const subjects = names.map((name) => build[name]());
  for (const subject of subjects) {
    const out = subject.flow();
    const expected = subject.name === "raw" || subject.name === "codec" ? payload : STATE;
    if (!sameOutput(out, expected)) throw new Error(`${subject.name}: seal + open did not round-trip`);
  }
  return { subjects, payloadBytes: payload.length, tokenChars: token.length };
}

function sameOutput(out: unknown, expected: string | Uint8Array): boolean {
  if (typeof expected === "string") return out === expected;
  return out instanceof Uint8Array && Buffer.compare(out, expected) === 0;
}
