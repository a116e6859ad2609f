import { DownstreamTokenError, type DownstreamTokens } from "@roundtrip/sdk/resource-server";
import { type AuthInfo, ToolError } from "@roundtrip/sdk/server";

/** One approved release, as the deployer is asked to roll it out. */
export interface RolloutRequest {
  release: string;
  service: string;
  env: string;
}

/** Starts the rollout of an approved release for the caller `auth`; `signal` gives up on it. */
export type Rollout = (
  request: RolloutRequest,
  auth: AuthInfo | undefined,
  signal?: AbortSignal,
) => Promise<void>;

export interface DeployerClientOptions {
  /** The deployer API's base URL. */
  url: string;
  /** Its audience at the authorization server. */
  audience: string;
  tokens: DownstreamTokens;
  fetch?: typeof fetch;
  /** How long the exchange and the deployer's answer may take together, in milliseconds (default 30000). */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The deploy tool's rollout through the downstream deployer API, with a token exchanged for the caller
 * (the caller's own token is for this server and never leaves it). A refusal, a failed exchange, an
 * unreachable deployer and one that does not answer in time each become a tool error the user reads,
 * naming the cause. The release's one deployment was claimed before the rollout, so it is not tried
 * again (no retry can roll it out twice); a new deploy call asks for a new release.
 */
export function deployerRollout(options: DeployerClientOptions): Rollout {
  // A base URL with a path keeps it: https://host/api gives https://host/api/rollouts.
  const endpoint = new URL("rollouts", options.url.endsWith("/") ? options.url : `${options.url}/`);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return async (request, auth, signal) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const failed = (what: string) =>
      new ToolError(
        `Release ${request.release} was approved, but ${what}; nothing was rolled out, and this release is spent: call deploy again for a new one`,
      );
    let response: Response;
    try {
      const token = await options.tokens.tokenFor(auth, { audience: options.audience }, stop);
      response = await fetchImpl(endpoint, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(request),
        signal: stop,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (deadline.aborted)
        throw failed(`the deployer at ${endpoint.origin} did not answer within ${timeoutMs} ms`);
      if (error instanceof DownstreamTokenError) throw failed(`no token for the deployer: ${error.message}`);
      const cause =
        error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw failed(`the deployer at ${endpoint.origin} could not be reached (${cause}); check that it runs`);
    }
    if (response.ok) {
      await response.body?.cancel();
      return;
    }
    const detail = (await response.json().catch(() => ({}))) as {
      error?: unknown;
      error_description?: unknown;
    };
    const reason = [detail.error, detail.error_description]
      .filter((part) => typeof part === "string")
      .join(": ");
    throw failed(
      `the deployer refused to roll it out (HTTP ${response.status}${reason ? ` ${reason}` : ""})`,
    );
  };
}
