/**
 * What sealing costs per multi round-trip flow: one seal (round 1) and one open of that token
 * (round 2), for four subjects on the same claims-sized payload, in one run:
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
 * Subjects run in interleaved time slices, each slice is timed in CPU time of this process, and each
 * subject reports its median slice: a machine busy with something else then slows every subject
 * alike, and the ratios stay meaningful.
 *
 *   pnpm --filter @roundtrip/bench bench:sealing [--slice-ms 200] [--slices 15] [--warmup-ms 500] [--json file]
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { AesGcmRequestStateCodec, RequestStateSecurity } from "@roundtrip/sealing";
import { passThroughCodec } from "./targets/pass-through-codec.js";

type SubjectName = "raw" | "codec" | "full" | "in-flight" | "envelope";

interface Subject {
  readonly name: SubjectName;
  readonly label: string;
  /** One flow: a seal and the open of what it sealed. */
  readonly flow: () => unknown;
}

/** Sealing's extra cost per flow may be at most this many µs ... */
const TARGET_FLOW_MICROS = 40;
/** ... and at most this multiple of the raw AEAD seal + open measured in the same run. */
const TARGET_RATIO = 3;
const BATCH = 32;
/**
 * More tokens than the policy remembers minting (1024), so each open pays for every check in full;
 * not many more, or the bench measures keeping thousands of tokens alive, which a server never does.
 */
const IN_FLIGHT = 1280;

// `pnpm run bench:sealing -- --slices 9` forwards the `--` itself.
const argv = process.argv.slice(2).filter((arg, index) => !(index === 0 && arg === "--"));
const { values } = parseArgs({
  args: argv,
  options: {
    "slice-ms": { type: "string", default: "200" },
    slices: { type: "string", default: "15" },
    "warmup-ms": { type: "string", default: "500" },
    json: { type: "string" },
  },
});
const sliceMs = Number(values["slice-ms"]);
const slices = Number(values.slices);
const warmupMs = Number(values["warmup-ms"]);

/** A resolver-style state of about 200 bytes, the typical size of a round's plaintext. */
const state = JSON.stringify({
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

const secret = randomBytes(32);
const security = new RequestStateSecurity({ keys: [secret] });
const envelopeOnly = new RequestStateSecurity({ codec: passThroughCodec });
const codec = new AesGcmRequestStateCodec([secret]);
const sampleToken = security.seal(state, request, context);
if (security.open(sampleToken, request, context) !== state) throw new Error("full round trip failed");
if (envelopeOnly.open(envelopeOnly.seal(state, request, context), request, context) !== state) {
  throw new Error("envelope round trip failed");
}
/** Exactly the bytes RequestStateSecurity hands its codec: the claims envelope. */
const payload = security.codec.unseal(sampleToken);

const rawKey = createSecretKey(randomBytes(32));
const rawNonce = Buffer.alloc(12);
let rawCounter = 0;

/**
 * The floor: AES-256-GCM alone (cipher setup, encrypt, tag, then decrypt and verify). Its nonce is
 * a counter, so it pays nothing for randomness, and its output is left in pieces, unencoded.
 */
function rawFlow(bytes: Uint8Array): Buffer {
  rawNonce.writeUInt32BE(++rawCounter >>> 0, 8);
  const cipher = createCipheriv("aes-256-gcm", rawKey, rawNonce);
  const ciphertext = cipher.update(bytes);
  cipher.final();
  const tag = cipher.getAuthTag();
  const decipher = createDecipheriv("aes-256-gcm", rawKey, rawNonce);
  decipher.setAuthTag(tag);
  const plaintext = decipher.update(ciphertext);
  decipher.final();
  return plaintext;
}

const inFlight: string[] = Array.from({ length: IN_FLIGHT }, () => security.seal(state, request, context));
let nextInFlight = 0;

/** Seals round 1 of a new flow and opens round 2 of the flow sealed IN_FLIGHT flows ago. */
function inFlightFlow(): string {
  const slot = nextInFlight;
  nextInFlight = (slot + 1) % IN_FLIGHT;
  const echoed = inFlight[slot] ?? "";
  inFlight[slot] = security.seal(state, request, context);
  return security.open(echoed, request, context);
}

const subjects: Subject[] = [
  { name: "raw", label: "raw AES-256-GCM (node:crypto)", flow: () => rawFlow(payload) },
  { name: "codec", label: "AesGcmRequestStateCodec", flow: () => codec.unseal(codec.seal(payload)) },
  {
    name: "full",
    label: "RequestStateSecurity",
    flow: () => security.open(security.seal(state, request, context), request, context),
  },
  { name: "in-flight", label: `RequestStateSecurity, ${IN_FLIGHT} in flight`, flow: inFlightFlow },
  {
    name: "envelope",
    label: "RequestStateSecurity, no cipher",
    flow: () => envelopeOnly.open(envelopeOnly.seal(state, request, context), request, context),
  },
];

/**
 * Runs `subject` for about `ms` milliseconds and returns its µs per flow of CPU time used by this
 * process (user + system). CPU time is what an operation costs; wall time on a shared machine also
 * counts time spent waiting for a core.
 */
function microsPerFlow(subject: Subject, ms: number): number {
  let flows = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < BATCH; i++) subject.flow();
    flows += BATCH;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / flows;
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function measure(): Record<SubjectName, number> {
  for (const subject of subjects) microsPerFlow(subject, warmupMs);
  const samples = new Map<Subject, number[]>(subjects.map((subject) => [subject, []]));
  for (let slice = 0; slice < slices; slice++) {
    const order = slice % 2 === 0 ? subjects : [...subjects].reverse();
    for (const subject of order) samples.get(subject)?.push(microsPerFlow(subject, sliceMs));
  }
  const micros = Object.fromEntries(
    subjects.map((subject) => [subject.name, median(samples.get(subject) ?? [])]),
  );
  return micros as Record<SubjectName, number>;
}

function printTable(micros: Record<SubjectName, number>): void {
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  console.log(
    `Roundtrip sealing: node ${process.version}, ${cpus().length} CPUs, load ${load}; ` +
      `state ${state.length} B, claims ${payload.length} B, token ${sampleToken.length} chars`,
  );
  console.log(
    `warm-up ${warmupMs} ms each, then ${slices} interleaved slices of ${sliceMs} ms; median slice; ` +
      "µs of CPU time of this process per flow (one seal + one open)\n",
  );
  console.log(`${"seal + open".padEnd(36)}${"µs/flow".padStart(10)}${"× raw".padStart(9)}`);
  for (const subject of subjects) {
    const value = micros[subject.name];
    console.log(
      `${subject.label.padEnd(36)}${value.toFixed(2).padStart(10)}${(value / micros.raw).toFixed(2).padStart(9)}`,
    );
  }
  console.log(
    `\nenvelope / raw AEAD ${(micros.envelope / micros.raw).toFixed(2)}×, ` +
      `codec / raw AEAD ${(micros.codec / micros.raw).toFixed(2)}×`,
  );
  for (const name of ["full", "in-flight"] as const) {
    const value = micros[name];
    const ratio = value / micros.raw;
    console.log(
      `${name}: sealing per flow ${value.toFixed(1)} µs (target ≤ ${TARGET_FLOW_MICROS}: ${value <= TARGET_FLOW_MICROS ? "met" : "missed"}); ` +
        `${ratio.toFixed(2)}× raw AEAD (target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? "met" : "missed"})`,
    );
  }
}

const micros = measure();
printTable(micros);
if (values.json !== undefined) {
  const report = {
    node: process.version,
    cpus: cpus().length,
    load: loadavg(),
    sliceMs,
    slices,
    warmupMs,
    micros,
  };
  writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
}
