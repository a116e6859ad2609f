import type { App, StackProps } from "aws-cdk-lib";
import { KeyStack } from "./key-stack.js";
import { ServiceStack } from "./service-stack.js";

/**
 * The two stacks, deployed in order: RoundtripKey (the KMS key; mint wrapped keys under it), then
 * RoundtripService (everything that runs). Context `keyAlias` renames the key's alias;
 * `redisHighAvailability=true` gives the shared Redis a replica in a second AZ.
 */
export function addRoundtripStacks(app: App, props: StackProps = {}) {
  const aliasName = (app.node.tryGetContext("keyAlias") as string | undefined) ?? "alias/roundtrip";
  // `-c name=true` arrives as a string, cdk.json's `true` as a boolean.
  const redisHighAvailability = String(app.node.tryGetContext("redisHighAvailability")) === "true";
  const keyStack = new KeyStack(app, "RoundtripKey", { ...props, aliasName });
  const serviceStack = new ServiceStack(app, "RoundtripService", {
    ...props,
    key: keyStack.key,
    redisHighAvailability,
  });
  serviceStack.addStackDependency(keyStack);
  return { keyStack, serviceStack };
}
