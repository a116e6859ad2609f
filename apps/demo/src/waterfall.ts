// The deploy flow's trace, drawn in the terminal from the spans the demo collected: one row per round,
// on a shared time axis, with the instance that served it, and the waits between rounds (alice's
// approval) as gaps. Plain text and box-drawing characters; every text that came from a span is
// escaped as the CLI escapes server text first, so nothing a peer named can steer the terminal.

import { safeInline } from "@roundtrip/client";

/** What the waterfall reads of one finished span. */
export interface CollectedSpan {
  readonly name: string;
  readonly spanId: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** The attribute the demo's instances put on each round's span, naming themselves. */
export const INSTANCE_ATTRIBUTE = "roundtrip.demo.instance";

const FLOW = "roundtrip.flow.id";
const ROUND = "roundtrip.round";
const RESULT = "roundtrip.result_type";
const KINDS = "roundtrip.input.kinds";
const TOOL = "gen_ai.tool.name";

/** Where the bars are drawn, in characters. */
const AXIS = 40;

/** A name from a span is shown, never obeyed: the CLI's own escaping, controls, bidi and lone surrogates. */
function printable(value: unknown): string {
  return safeInline(String(value ?? ""));
}

/** The rounds of the last completed call of `tool`: the spans that share its flow id, in order. */
export function lastFlow(spans: readonly CollectedSpan[], tool: string): CollectedSpan[] {
  const calls = spans.filter(
    (span) => span.attributes[TOOL] === tool && typeof span.attributes[FLOW] === "string",
  );
  const completed = calls
    .filter((span) => span.attributes[RESULT] === "complete")
    .sort((a, b) => a.endMs - b.endMs)
    .at(-1);
  if (completed === undefined) return [];
  const flow = completed.attributes[FLOW];
  return calls.filter((span) => span.attributes[FLOW] === flow).sort((a, b) => a.startMs - b.startMs);
}

function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.max(0, Math.round(ms))} ms`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text.slice(0, width) : text + " ".repeat(width - text.length);
}

/** Which column of the axis `ms` falls in. */
function column(ms: number, start: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(AXIS - 1, Math.max(0, Math.floor(((ms - start) / total) * AXIS)));
}

function bar(from: number, to: number, fill: string): string {
  const length = Math.max(1, to - from + 1);
  return pad(" ".repeat(from) + fill.repeat(length), AXIS);
}

function outcome(span: CollectedSpan): string {
  const result = printable(span.attributes[RESULT] ?? "error");
  const kinds = span.attributes[KINDS];
  return Array.isArray(kinds) && kinds.length > 0 ? `${result}: ${kinds.map(printable).join(", ")}` : result;
}

/**
 * The waterfall of one flow's rounds, as lines. `gapLabel` says what the longest wait between two
 * rounds was (the demo: alice approving in her browser); shorter ones are the client's own turnaround.
 */
export function renderWaterfall(
  rounds: readonly CollectedSpan[],
  options: { title: string; gapLabel: string },
): string[] {
  if (rounds.length === 0) return [`${printable(options.title)}: no spans were collected`];
  const start = Math.min(...rounds.map((span) => span.startMs));
  const end = Math.max(...rounds.map((span) => span.endMs));
  const total = end - start;
  const instances = [...new Set(rounds.map((span) => printable(span.attributes[INSTANCE_ATTRIBUTE] ?? "?")))];
  const flow = printable(rounds[0]?.attributes[FLOW]);
  const widths = [5, 8, AXIS, 9, 30];
  const rule = (left: string, middle: string, right: string) =>
    left + widths.map((width) => "─".repeat(width + 2)).join(middle) + right;
  const row = (cells: string[]) => `│ ${cells.map((cell, i) => pad(cell, widths[i] ?? 0)).join(" │ ")} │`;
  const axis = pad(`0${" ".repeat(Math.max(1, AXIS - 1 - duration(total).length))}${duration(total)}`, AXIS);
  const lines = [
    `${printable(options.title)}: flow ${flow}, ${rounds.length} rounds on ${instances.length === 1 ? "instance" : "instances"} ${instances.join(", ")}`,
    rule("┌", "┬", "┐"),
    row(["round", "instance", axis, "took", "result"]),
    rule("├", "┼", "┤"),
  ];
  const gaps = rounds.map((span, index) => span.startMs - (rounds[index - 1]?.endMs ?? span.startMs));
  const longest = gaps.indexOf(Math.max(...gaps));
  rounds.forEach((span, index) => {
    const previous = rounds[index - 1];
    if (previous !== undefined && span.startMs > previous.endMs) {
      const label = index === longest ? printable(options.gapLabel) : "until the next round";
      const from = Math.min(AXIS - 1, column(previous.endMs, start, total) + 1);
      const to = Math.max(from, column(span.startMs, start, total) - 1);
      lines.push(row(["", "", bar(from, to, "┄"), duration(span.startMs - previous.endMs), label]));
    }
    lines.push(
      row([
        printable(span.attributes[ROUND] ?? "?"),
        printable(span.attributes[INSTANCE_ATTRIBUTE] ?? "?"),
        bar(column(span.startMs, start, total), column(span.endMs, start, total), "█"),
        duration(span.endMs - span.startMs),
        outcome(span),
      ]),
    );
  });
  lines.push(rule("└", "┴", "┘"));
  return lines;
}
