import type { Span } from "@opentelemetry/api";
import { ATTR } from "../../protocol/telemetry/names.js";
import { currentRound } from "./round-record.js";

/** A task's work, traced: its body runs inside the span, and its end names the status it reached. */
export interface TaskSpan {
  run<T>(work: () => Promise<T>): Promise<T>;
  end(status: string): void;
}

const UNTRACED: TaskSpan = {
  run: (work) => work(),
  end: () => {},
};

/**
 * The span of a task started by the request being served: its own trace (the task outlives the
 * tools/call that made it), linked to that call's span, with the tool's name and never the task id,
 * which is a bearer capability. Untraced when the request records no span.
 */
export function startTaskSpan(): TaskSpan {
  const round = currentRound();
  const parent = round?.span;
  if (round === undefined || parent === undefined || !parent.isRecording()) return UNTRACED;
  try {
    const { otel, tracer } = round.scope;
    const tool = round.target[ATTR.toolName];
    const span: Span = tracer.startSpan(typeof tool === "string" ? `task ${tool}` : "task", {
      kind: otel.SpanKind.INTERNAL,
      attributes: round.target,
      links: [{ context: parent.spanContext() }],
      root: true,
    });
    const context = otel.trace.setSpan(otel.ROOT_CONTEXT, span);
    return {
      run: (work) => otel.context.with(context, work),
      end: (status) => {
        span.setAttribute(ATTR.taskStatus, status);
        if (status === "failed") span.setStatus({ code: otel.SpanStatusCode.ERROR });
        span.end();
      },
    };
  } catch {
    return UNTRACED;
  }
}
