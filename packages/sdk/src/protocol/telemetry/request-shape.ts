import type { Attributes } from "@opentelemetry/api";
import { ATTR } from "./names.js";
import { metricAttributes, requestAttributes, spanName } from "./request-attributes.js";

/**
 * What telemetry records alike for every request to one method and target over one transport and
 * protocol version: built once and shared, so a request copies a finished attribute set instead of
 * building, filtering and hashing a new one each time.
 */
export interface RequestShape {
  readonly spanName: string;
  /** The span attributes every such request has (no request id, no resource URI). */
  readonly attributes: Attributes;
  /** The method and what it names, for the metrics that carry no transport or outcome. */
  readonly target: Attributes;
  /** The duration metric's attributes for one outcome: the shape's low-cardinality ones and the outcome's. */
  metric(outcome: Attributes): Attributes;
}

/** Tool and prompt names come from the peer: past this many, shapes are built per request, not kept. */
const MAX_SHAPES = 256;
/** Outcomes are result types and error codes: few, unless a handler invents codes. */
const MAX_OUTCOMES = 32;

class Shape implements RequestShape {
  readonly spanName: string;
  readonly attributes: Attributes;
  readonly target: Attributes;
  readonly #metric: Attributes;
  readonly #outcomes = new Map<string, Attributes>();

  constructor(name: string, target: Attributes, context: Attributes) {
    this.spanName = name;
    // Shared by every request of the shape: frozen, so nothing that receives one can change the others.
    this.target = Object.freeze(metricAttributes(target));
    this.attributes = Object.freeze({ ...target, ...context });
    this.#metric = metricAttributes(this.attributes);
  }

  metric(outcome: Attributes): Attributes {
    const key = `${outcome[ATTR.resultType] ?? ""}\u0000${outcome[ATTR.errorType] ?? ""}\u0000${outcome[ATTR.statusCode] ?? ""}`;
    let attributes = this.#outcomes.get(key);
    if (attributes === undefined) {
      attributes = Object.freeze({ ...this.#metric, ...metricAttributes(outcome) });
      if (this.#outcomes.size < MAX_OUTCOMES) this.#outcomes.set(key, attributes);
    }
    return attributes;
  }
}

/** The shapes one side has met, by method, target and the context the caller names. */
export class RequestShapes {
  readonly #shapes = new Map<string, Shape>();

  /**
   * `context` names what `contextAttributes` would build (transport, version), so that it is called
   * only for a shape not yet met.
   */
  of(
    method: string,
    params: Readonly<Record<string, unknown>>,
    context: string,
    contextAttributes: () => Attributes,
  ): RequestShape {
    const target = method === "tools/call" || method === "prompts/get" ? params.name : undefined;
    const key = `${method}\u0000${typeof target === "string" ? target : ""}\u0000${context}`;
    let shape = this.#shapes.get(key);
    if (shape === undefined) {
      const attributes = requestAttributes(method, params);
      delete attributes[ATTR.mcpResourceUri];
      shape = new Shape(spanName(method, params), attributes, contextAttributes());
      if (this.#shapes.size < MAX_SHAPES) this.#shapes.set(key, shape);
    }
    return shape;
  }
}
