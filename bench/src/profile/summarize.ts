/**
 * Summarises a V8 .cpuprofile (from `pnpm bench --profile`): the functions with the most self time,
 * the most inclusive time, and the share of time per code origin (our SDK, sealing, zod, Node...).
 *
 *   pnpm --filter @roundtrip/bench run profile:summary results/profiles/roundtrip.cpuprofile [--top 25] [--from 2]
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { cliArgs } from "../cli/args.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds between consecutive samples, the first from startTime. */
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  args: cliArgs(),
  allowPositionals: true,
  options: { top: { type: "string", default: "25" }, from: { type: "string", default: "0" } },
});
const top = Number(values.top);
/** Samples before this many seconds are left out: start-up and module loading are not the steady state. */
const fromSeconds = Number(values.from);

/** Where code comes from, so time can be told apart by owner. */
function origin(url: string): string {
  if (url === "") return "(V8: GC, program, native)";
  if (url.startsWith("node:")) return "node internals";
  // pnpm nests packages as node_modules/.pnpm/<id>/node_modules/<name>: the last segment names it.
  const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  const ours = /packages\/([^/]+)\//.exec(url);
  if (ours?.[1]) return `@roundtrip/${ours[1]}`;
  if (url.includes("/bench/")) return "bench target code";
  return url;
}

function where(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\//, "").replace(/^.*\/(node_modules|packages|bench)\//, "$1/");
  return `${functionName || "(anonymous)"} ${file ? `${file}:${lineNumber + 1}` : ""}`.trim();
}

function pct(part: number, total: number): string {
  return `${((part / total) * 100).toFixed(1).padStart(5)}%`;
}

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const hits = new Map<number, number>();
  let elapsedUs = 0;
  let total = 0;
  profile.samples.forEach((id, index) => {
    elapsedUs += profile.timeDeltas[index] ?? 0;
    if (elapsedUs < fromSeconds * 1e6) return;
    hits.set(id, (hits.get(id) ?? 0) + 1);
    total++;
  });

  const self = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  for (const [id, count] of hits) {
    const node = byId.get(id);
    if (!node) continue;
    self.set(where(node), (self.get(where(node)) ?? 0) + count);
    if (node.callFrame.functionName === "(idle)") continue;
    const owner = origin(node.callFrame.url);
    byOrigin.set(owner, (byOrigin.get(owner) ?? 0) + count);
  }

  // Inclusive time: a node's hits plus its subtree's, counted once per function per stack.
  const inclusive = new Map<string, number>();
  const visit = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id);
    if (!node) return 0;
    let sum = hits.get(id) ?? 0;
    const key = where(node);
    const fresh = !onStack.has(key);
    if (fresh) onStack.add(key);
    for (const child of node.children ?? []) sum += visit(child, onStack);
    if (fresh) {
      onStack.delete(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + sum);
    }
    return sum;
  };
  const root = profile.nodes[0];
  if (root) visit(root.id, new Set());

  // Shares are of busy time: an unsaturated server idles, and idle time says nothing about its costs.
  const idleNode = profile.nodes.find((node) => node.callFrame.functionName === "(idle)");
  const idle = idleNode ? (hits.get(idleNode.id) ?? 0) : 0;
  const busy = Math.max(1, total - idle);
  self.delete(idleNode ? where(idleNode) : "");
  inclusive.delete("(root)");
  if (idleNode) inclusive.delete(where(idleNode));
  const seconds = (profile.endTime - profile.startTime) / 1e6;
  console.log(
    `\n${file}: ${total} samples from ${fromSeconds} s to ${seconds.toFixed(1)} s, ${((idle / Math.max(1, total)) * 100).toFixed(1)}% idle; shares below are of busy time\n`,
  );
  const print = (title: string, map: Map<string, number>): void => {
    console.log(title);
    for (const [key, count] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`  ${pct(count, busy)}  ${key}`);
    }
    console.log("");
  };
  print("time by origin (self)", byOrigin);
  print(`top ${top} functions by self time`, self);
  print(`top ${top} functions by inclusive time`, inclusive);
}
