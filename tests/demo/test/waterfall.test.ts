import { type CollectedSpan, INSTANCE_ATTRIBUTE, lastFlow, renderWaterfall } from "@roundtrip/demo/waterfall";
import { describe, expect, it } from "vitest";

/**
 * The deploy trace the demo draws at its end, from a fixed set of spans: which rounds, in which order,
 * on which instances, with the wait between them shown as a gap. Structure only, never timing.
 */

function round(
  round: number,
  instance: string,
  startMs: number,
  endMs: number,
  extra: Record<string, unknown> = {},
): CollectedSpan {
  return {
    name: "tools/call deploy",
    spanId: `span-${round}-${instance}`,
    startMs,
    endMs,
    attributes: {
      "gen_ai.tool.name": "deploy",
      "roundtrip.flow.id": "1a2b3c4d5e6f7081",
      "roundtrip.round": round,
      [INSTANCE_ATTRIBUTE]: instance,
      ...extra,
    },
  };
}

const DEPLOY = [
  round(2, "B", 5_000, 5_012, { "roundtrip.result_type": "complete" }),
  round(1, "A", 1_000, 1_020, {
    "roundtrip.result_type": "input_required",
    "roundtrip.input.kinds": ["elicitation"],
  }),
];
const OTHER: CollectedSpan[] = [
  // An earlier deploy flow, and another tool's flow: neither is the one drawn.
  {
    ...round(1, "A", 100, 110, { "roundtrip.result_type": "complete" }),
    attributes: {
      ...round(1, "A", 0, 0).attributes,
      "roundtrip.flow.id": "ffffffffffffffff",
      "roundtrip.result_type": "complete",
    },
  },
  {
    ...round(1, "B", 6_000, 6_010),
    attributes: { "gen_ai.tool.name": "greet", "roundtrip.flow.id": "0000000000000000" },
  },
];

describe("the deploy waterfall", () => {
  it("takes the last completed deploy flow's rounds, in the order they ran", () => {
    const rounds = lastFlow([...OTHER, ...DEPLOY], "deploy");
    expect(
      rounds.map((span) => [span.attributes["roundtrip.round"], span.attributes[INSTANCE_ATTRIBUTE]]),
    ).toEqual([
      [1, "A"],
      [2, "B"],
    ]);
  });

  it("draws one row per round, instance by instance, with the wait on alice as a gap between them", () => {
    const lines = renderWaterfall(lastFlow(DEPLOY, "deploy"), {
      title: "tools/call deploy",
      gapLabel: "waiting on alice",
    });
    expect(lines[0]).toBe("tools/call deploy: flow 1a2b3c4d5e6f7081, 2 rounds on instances A, B");
    expect(lines[1]?.startsWith("┌")).toBe(true);
    expect(lines.at(-1)?.startsWith("└")).toBe(true);
    const body = lines.slice(4, -1);
    expect(body).toHaveLength(3);
    const cells = body.map((line) => line.split("│").map((cell) => cell.trim()));
    expect(cells.map((row) => row.slice(1, 3))).toEqual([
      ["1", "A"],
      ["", ""],
      ["2", "B"],
    ]);
    expect(cells[0]?.[5]).toBe("input_required: elicitation");
    expect(cells[1]?.[5]).toBe("waiting on alice");
    expect(cells[2]?.[5]).toBe("complete");
    // The first round's bar opens the axis, the second closes it, and the gap lies between them.
    const bars = body.map((line) => line.split("│")[3] ?? "");
    const first = bars[0]?.indexOf("█") ?? -1;
    const gap = bars[1]?.indexOf("┄") ?? -1;
    const second = bars[2]?.lastIndexOf("█") ?? -1;
    expect(first).toBeLessThan(gap);
    expect(gap).toBeLessThan(second);
    expect(bars[2]?.trimEnd().endsWith("█")).toBe(true);
    // Every row is as wide as the frame.
    expect(new Set(lines.slice(1).map((line) => [...line].length)).size).toBe(1);
  });

  it("names only the longest wait as alice's; the others are the client's turnaround", () => {
    const three = [
      round(1, "A", 1_000, 1_020, { "roundtrip.result_type": "input_required" }),
      round(2, "A", 1_030, 1_045, { "roundtrip.result_type": "input_required" }),
      round(3, "B", 5_000, 5_012, { "roundtrip.result_type": "complete" }),
    ];
    const lines = renderWaterfall(lastFlow(three, "deploy"), {
      title: "deploy",
      gapLabel: "waiting on alice",
    });
    const labels = lines.slice(4, -1).map((line) => line.split("│")[5]?.trim());
    expect(labels).toEqual([
      "input_required",
      "until the next round",
      "input_required",
      "waiting on alice",
      "complete",
    ]);
  });

  it("shows a peer's control characters as text, never as terminal control", () => {
    const hostile = DEPLOY.map((span) => ({
      ...span,
      attributes: {
        ...span.attributes,
        [INSTANCE_ATTRIBUTE]: "A\u001b[2J\u0007\u202e\ud800",
        "roundtrip.input.kinds": ["elicitation\r\u009b31m"],
      },
    }));
    const text = renderWaterfall(lastFlow(hostile, "deploy"), {
      title: "tools/call deploy",
      gapLabel: "wait",
    }).join("\n");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for controls is the point
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(text).not.toMatch(/[\ud800-\udfff]/u);
    // The heading names the instances in full: bidi control and lone surrogate escaped too.
    expect(text).toContain("A\\x1b[2J\\x07\\u202e\\ud800");
  });

  it("says so when no deploy flow was recorded", () => {
    expect(
      renderWaterfall(lastFlow(OTHER.slice(1), "deploy"), { title: "tools/call deploy", gapLabel: "wait" }),
    ).toEqual(["tools/call deploy: no spans were collected"]);
  });
});
