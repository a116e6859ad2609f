/**
 * Sealing throughput: RequestStateSecurity (full claims envelope) and the bare built-in codec,
 * against raw AES-256-GCM from node:crypto on the same payload (the floor any sealing pays).
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

interface Subject {
  readonly name: string;
  readonly kind: "seal" | "open";
  readonly floor: boolean;
  readonly run: () => unknown;
}

interface Result {
  readonly name: string;
  readonly kind: "seal" | "open";
  readonly opsPerSecond: number;
  readonly ratioToFloor: number;
}

const TARGET_RATIO = 1.5;
const BATCH = 32;

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
const codec = new AesGcmRequestStateCodec([secret]);
const envelopeToken = security.seal(state, request, context);
if (security.open(envelopeToken, request, context) !== state) throw new Error("envelope round trip failed");
/** Exactly the bytes RequestStateSecurity hands its codec: the claims envelope. */
const payload = security.codec.unseal(envelopeToken);
const codecToken = codec.seal(payload);

const rawKey = createSecretKey(randomBytes(32));
const rawNonce = Buffer.alloc(12);
let rawCounter = 0;
const rawSealed = { ...rawSeal(payload), nonce: Buffer.from(rawNonce) };

/**
 * The floor: AES-256-GCM alone (cipher setup, encrypt, tag). Its nonce is a counter, so it pays
 * nothing for randomness, and its output is left in pieces, unencoded.
 */
function rawSeal(bytes: Uint8Array): { nonce: Buffer; ciphertext: Buffer; final: Buffer; tag: Buffer } {
  rawNonce.writeUInt32BE(++rawCounter >>> 0, 8);
  const cipher = createCipheriv("aes-256-gcm", rawKey, rawNonce);
  const ciphertext = cipher.update(bytes);
  const final = cipher.final();
  return { nonce: rawNonce, ciphertext, final, tag: cipher.getAuthTag() };
}

function rawOpen(sealed: { nonce: Buffer; ciphertext: Buffer; tag: Buffer }): Buffer {
  const decipher = createDecipheriv("aes-256-gcm", rawKey, sealed.nonce);
  decipher.setAuthTag(sealed.tag);
  const plaintext = decipher.update(sealed.ciphertext);
  decipher.final();
  return plaintext;
}

const subjects: Subject[] = [
  { name: "raw AES-256-GCM seal (node:crypto)", kind: "seal", floor: true, run: () => rawSeal(payload) },
  { name: "AesGcmRequestStateCodec.seal", kind: "seal", floor: false, run: () => codec.seal(payload) },
  {
    name: "RequestStateSecurity.seal",
    kind: "seal",
    floor: false,
    run: () => security.seal(state, request, context),
  },
  { name: "raw AES-256-GCM open (node:crypto)", kind: "open", floor: true, run: () => rawOpen(rawSealed) },
  { name: "AesGcmRequestStateCodec.unseal", kind: "open", floor: false, run: () => codec.unseal(codecToken) },
  {
    name: "RequestStateSecurity.open",
    kind: "open",
    floor: false,
    run: () => security.open(envelopeToken, request, context),
  },
];

/**
 * Runs `subject` for about `ms` milliseconds and returns its rate per second of CPU time used by
 * this process (user + system). CPU time is what an operation costs; wall time on a shared machine
 * also counts time spent waiting for a core.
 */
function opsPerSecond(subject: Subject, ms: number): number {
  let ops = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < BATCH; i++) subject.run();
    ops += BATCH;
  }
  const used = process.cpuUsage(cpu);
  return (ops * 1e6) / Math.max(1, used.user + used.system);
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function measure(): Result[] {
  for (const subject of subjects) opsPerSecond(subject, warmupMs);
  const samples = new Map<Subject, number[]>(subjects.map((subject) => [subject, []]));
  for (let slice = 0; slice < slices; slice++) {
    const order = slice % 2 === 0 ? subjects : [...subjects].reverse();
    for (const subject of order) samples.get(subject)?.push(opsPerSecond(subject, sliceMs));
  }
  const rates = new Map(subjects.map((subject) => [subject, median(samples.get(subject) ?? [])]));
  return subjects.map((subject) => {
    const floor = subjects.find((candidate) => candidate.floor && candidate.kind === subject.kind);
    const floorRate = floor === undefined ? Number.NaN : (rates.get(floor) ?? Number.NaN);
    const rate = rates.get(subject) ?? Number.NaN;
    return { name: subject.name, kind: subject.kind, opsPerSecond: rate, ratioToFloor: floorRate / rate };
  });
}

function printTable(results: readonly Result[]): void {
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  console.log(
    `Roundtrip sealing: node ${process.version}, ${cpus().length} CPUs, load ${load}; ` +
      `state ${state.length} B, envelope ${payload.length} B, token ${envelopeToken.length} chars`,
  );
  console.log(
    `warm-up ${warmupMs} ms each, then ${slices} interleaved slices of ${sliceMs} ms; median slice; ` +
      "rates per CPU-second of this process\n",
  );
  console.log(
    `${"operation".padEnd(38)}${"ops/s".padStart(12)}${"µs/op".padStart(10)}${"× raw".padStart(9)}`,
  );
  for (const result of results) {
    const rate = Math.round(result.opsPerSecond).toLocaleString("en-US");
    const micros = (1e6 / result.opsPerSecond).toFixed(2);
    console.log(
      `${result.name.padEnd(38)}${rate.padStart(12)}${micros.padStart(10)}${result.ratioToFloor.toFixed(2).padStart(9)}`,
    );
  }
  for (const kind of ["seal", "open"] as const) {
    const envelope = results.find(
      (result) => result.kind === kind && result.name.startsWith("RequestStateSecurity"),
    );
    if (envelope === undefined) continue;
    const verdict = envelope.ratioToFloor <= TARGET_RATIO ? "met" : "missed";
    console.log(
      `\nenvelope ${kind}: ${envelope.ratioToFloor.toFixed(2)}× raw AEAD (target ${TARGET_RATIO}×: ${verdict})`,
    );
  }
}

const results = measure();
printTable(results);
if (values.json !== undefined) {
  const report = {
    node: process.version,
    cpus: cpus().length,
    load: loadavg(),
    sliceMs,
    slices,
    warmupMs,
    results,
  };
  writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
}
