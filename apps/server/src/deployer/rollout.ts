import type { DownstreamTokens } from "@roundtrip/sdk/resource-server";
import { type AuthInfo, ToolError } from "@roundtrip/sdk/server";

/** One approved release, as the deployer is asked to roll it out. */
export interface RolloutRequest {
  release: string;
  service: string;
  env: string;
}

/** Starts the rollout of an approved release for the caller `auth`. */
export type Rollout = (request: RolloutRequest, auth: AuthInfo | undefined) => Promise<void>;

export interface DeployerClientOptions {
  /** The deployer API's base URL. */
  url: string;
  /** Its audience at the authorization server. */
  audience: string;
  tokens: DownstreamTokens;
  fetch?: typeof fetch;
}

/**
 * The deploy tool's rollout through the downstream deployer API, with a token exchanged for the caller
 * (the caller's own token is for this server and never leaves it). A refusal becomes a tool error the
 * user reads.
 */
export function deployerRollout(options: DeployerClientOptions): Rollout {
  const endpoint = new URL("/rollouts", options.url);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  return async (request, auth) => {
    const token = await options.tokens.tokenFor(auth, { audience: options.audience });
    const response = await fetchImpl(endpoint, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(request),
    });
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
    throw new ToolError(
      `Release ${request.release} was approved, but the deployer refused to roll it out (HTTP ${response.status}${reason ? ` ${reason}` : ""})`,
    );
  };
}
