/**
 * What sealing costs per multi round-trip flow, in process, for the subjects of
 * `sealing/subjects.ts`: one seal (round 1) and one open of that token (round 2) each.
 *
 * Subjects run in interleaved time slices, each slice is timed in CPU time of this process, and each
 * subject reports its median slice: a machine busy with something else then slows every subject
 * alike, and the ratios stay meaningful.
 *
 * With `--server`, the greet flow through the low-level Server's handleRequest (sealed, over the
 * pass-through codec, and open; see sealing/server-flow.ts) joins the same slices, and the sealed and
 * envelope servers' extra µs per flow over the open one are printed beside the policy's own cost.
 *
 *   pnpm --filter @roundtrip/bench bench:sealing [--slice-ms 200] [--slices 15] [--warmup-ms 500] [--server] [--json file]
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { cliArgs } from "./cli/args.js";
import { SEALING_MAX_EXTRA_MICROS, SEALING_MAX_RAW_MULTIPLE } from "./report/goals.js";
import type { HttpFlowSubject } from "./sealing/http-flow.js";
import type { ServerFlowSubject } from "./sealing/server-flow.js";
import { measureInSlices } from "./sealing/slices.js";
import { STATE, type SubjectName, sealingSubjects } from "./sealing/subjects.js";

const { values } = parseArgs({
  args: cliArgs(),
  options: {
    "slice-ms": { type: "string", default: "200" },
    slices: { type: "string", default: "15" },
    "warmup-ms": { type: "string", default: "500" },
    server: { type: "boolean", default: false },
    http: { type: "boolean", default: false },
    json: { type: "string" },
  },
});
const options = {
  sliceMs: Number(values["slice-ms"]),
  slices: Number(values.slices),
  warmupMs: Number(values["warmup-ms"]),
};

const { subjects, payloadBytes, tokenChars } = sealingSubjects();
// Imported only when asked for: they need @roundtrip/sdk built, which `bench:sealing` does not build.
const servers: ServerFlowSubject[] = [];
if (values.server) {
  const { serverFlow } = await import("./sealing/server-flow.js");
  for (const sealing of ["aes-gcm", "pass-through", "off"] as const) servers.push(serverFlow(sealing));
}
const http: HttpFlowSubject[] = [];
if (values.http) {
  const { httpFlow } = await import("./sealing/http-flow.js");
  for (const kind of [
    "roundtrip-server-sealed",
    "roundtrip-server-envelope",
    "roundtrip-server-open",
  ] as const) {
    http.push(await httpFlow(kind));
  }
}
const measured = await measureInSlices([...subjects, ...servers, ...http], options);
await Promise.all(http.map((subject) => subject.close()));
const micros = measured as Record<SubjectName, number>;

const load = loadavg()
  .map((value) => value.toFixed(1))
  .join(" ");
console.log(
  `Roundtrip sealing: node ${process.version}, ${cpus().length} CPUs, load ${load}; ` +
    `state ${STATE.length} B, claims ${payloadBytes} B, token ${tokenChars} chars`,
);
console.log(
  `warm-up ${options.warmupMs} ms each, then ${options.slices} interleaved slices of ${options.sliceMs} ms; median slice; ` +
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
    `${name}: sealing per flow ${value.toFixed(1)} µs (target ≤ ${SEALING_MAX_EXTRA_MICROS}: ${value <= SEALING_MAX_EXTRA_MICROS ? "met" : "missed"}); ` +
      `${ratio.toFixed(2)}× raw AEAD (target ≤ ${SEALING_MAX_RAW_MULTIPLE}×: ${ratio <= SEALING_MAX_RAW_MULTIPLE ? "met" : "missed"})`,
  );
}

/** A measured subject's µs per flow by name (NaN if it did not run). */
const at = (name: string): number => (measured as Record<string, number | undefined>)[name] ?? Number.NaN;

if (servers.length > 0) {
  console.log("\nServer.handleRequest, whole greet flow (JSON text in and out, no HTTP):");
  for (const subject of servers) {
    console.log(`${subject.label.padEnd(44)}${at(subject.name).toFixed(2).padStart(10)} µs/flow`);
  }
  const open = at("server-off");
  console.log(
    `extra over open: sealed ${(at("server-aes-gcm") - open).toFixed(1)} µs, ` +
      `envelope ${(at("server-pass-through") - open).toFixed(1)} µs ` +
      `(the policy alone: full ${micros.full.toFixed(1)}, envelope ${micros.envelope.toFixed(1)})`,
  );
}

if (http.length > 0) {
  console.log(
    "\nthe same flow over HTTP on loopback, server and client in this process, one flow at a time:",
  );
  for (const subject of http) {
    console.log(`${subject.label.padEnd(44)}${at(subject.name).toFixed(2).padStart(10)} µs/flow`);
  }
  const open = at("http-roundtrip-server-open");
  console.log(
    `extra over open: sealed ${(at("http-roundtrip-server-sealed") - open).toFixed(1)} µs, ` +
      `envelope ${(at("http-roundtrip-server-envelope") - open).toFixed(1)} µs`,
  );
}

if (values.json !== undefined) {
  const report = {
    node: process.version,
    cpus: cpus().length,
    load: loadavg(),
    ...options,
    micros: measured,
  };
  writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
}
