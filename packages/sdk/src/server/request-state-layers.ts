import type {
  OpenedRequestState,
  RequestStateContext,
  RequestStateRequest,
  RequestStateSecurity,
} from "@roundtrip/sealing";
import { type OnceEnvelope, readOnceEnvelope, writeOnceEnvelope } from "./mcp-server/once-envelope.js";
import {
  decodeResolverState,
  encodeResolverState,
  type ResolverState,
} from "./mcp-server/resolvers/resolver-state.js";

/**
 * The layers of a server's requestState, and the order they go on and come off. What a client holds
 * is up to three layers deep, each one the plaintext of the layer around it:
 *
 *   sealed ⟨ once ⟨ resolver ⟩ ⟩
 *
 *   "v1.…"                  the token: the policy's codec (AES-256-GCM, KMS or your own) around
 *   └─ sealed               {"v":1,"iat":…,"exp":…,"m":…,"t":…,"a":…,"s":<plaintext>,"aud":…,"p":…}
 *      │                   "o" (optional): the trail, the flow and round that sealed it and their span
 *      └─ once              {"once":1,"f":<flow>,"r":<round>,"t":<first mint>,"s":<state|null>}
 *         └─ resolver       {"v":3,"outcomes":{…},"asked":{…}}
 *
 *   inbound    sealedLayer.open   →  onceLayer.read   →  resolverLayer.read     outermost first
 *   outbound   resolverLayer.write  →  onceLayer.write  →  sealedLayer.seal     innermost first
 *
 * The sealed layer is always there once the boundary is installed; the once layer only around a
 * `once: true` tool, prompt or resource template; the resolver layer only in a tool with resolvers
 * (any other handler keeps its own string there, or nothing). Each layer is put on and taken off by
 * one stage, and the stages nest the same way, so the order above is the order they run in:
 *
 * - sealed: the request-state boundary (request-state-boundary.ts), the first middleware McpServer
 *   installs, so every later middleware and handler sees plaintext;
 * - once: OnceRounds (mcp/once-rounds.ts), around the handler, which claims the round in the once
 *   store between reading the envelope and running the handler;
 * - resolver: the resolver round (mcp/resolvers/resolver-round.ts), inside the tool.
 *
 * Every stage reaches its layer's codec through here and treats what is inside it as an opaque
 * string, so no codec knows about another. The formats are fixed: during a rolling upgrade a flow's
 * rounds cross instances on either release, and a layer that does not read (another version, another
 * shape) is refused (sealed, once) or restarts the flow (resolver), never misread.
 */

/** The outermost layer: the token on the wire around the plaintext, bound to the call. */
export const sealedLayer = {
  open(
    security: RequestStateSecurity,
    token: unknown,
    request: RequestStateRequest,
    context: RequestStateContext,
  ): OpenedRequestState {
    return security.openWithTrail(token, request, context);
  },
  seal(
    security: RequestStateSecurity,
    plaintext: string,
    request: RequestStateRequest,
    context: RequestStateContext,
  ): string {
    return security.seal(plaintext, request, context);
  },
};

/** The middle layer, around a `once: true` handler's state: the flow and round it belongs to. */
export const onceLayer: {
  read(plaintext: string): OnceEnvelope | undefined;
  write(envelope: OnceEnvelope): string;
} = { read: readOnceEnvelope, write: writeOnceEnvelope };

/** The innermost layer, a resolver tool's state: the answers so far and the questions last asked. */
export const resolverLayer: {
  read(plaintext: string | undefined): ResolverState;
  write(state: ResolverState): string;
} = { read: decodeResolverState, write: encodeResolverState };
