import { DownstreamTokens } from "@roundtrip/sdk/resource-server";
import type { AuthConfig, DeployerConfig } from "../config/server-config.js";
import { deployerRollout, type Rollout } from "./rollout.js";

/** The deploy tool's rollout as the configuration describes it: the deployer, and the exchange at the issuer. */
export function deployerRolloutFor(deployer: DeployerConfig, auth: AuthConfig): Rollout {
  const tokens = new DownstreamTokens({
    issuer: auth.issuer,
    clientId: deployer.exchangeClientId,
    clientSecret: deployer.exchangeClientSecret,
    allowInsecureHttp: auth.allowInsecureHttp,
  });
  return deployerRollout({ url: deployer.url, audience: deployer.audience, tokens });
}
