import type { App, StackProps } from "aws-cdk-lib";
import { KeyStack } from "./key-stack.js";
import { ServiceStack } from "./service-stack.js";

/**
 * The two stacks, deployed in order: RoundtripKey (the KMS key; mint wrapped keys under it), then
 * RoundtripService (everything that runs). Context `keyAlias` renames the key's alias;
 * `redisReplicas` sets how many replicas the shared Redis keeps beside its primary (1 to 5, 1 by default).
 */
export function addRoundtripStacks(app: App, props: StackProps = {}) {
  const aliasName = (app.node.tryGetContext("keyAlias") as string | undefined) ?? "alias/roundtrip";
  if (app.node.tryGetContext("redisHighAvailability") !== undefined) {
    throw new Error(
      "The context redisHighAvailability is gone: the shared Redis always has a replica in another AZ " +
        "with automatic failover. Remove it, and set redisReplicas (1 to 5) for more replicas.",
    );
  }
  // `-c name=2` arrives as a string, cdk.json's `2` as a number.
  const replicas = app.node.tryGetContext("redisReplicas") as string | number | undefined;
  if (replicas !== undefined && !/^\d+$/.test(String(replicas))) {
    throw new Error(`The context redisReplicas is "${replicas}"; give a whole number from 1 to 5.`);
  }
  const redisReplicas = replicas === undefined ? undefined : Number(replicas);
  const keyStack = new KeyStack(app, "RoundtripKey", { ...props, aliasName });
  const serviceStack = new ServiceStack(app, "RoundtripService", {
    ...props,
    key: keyStack.key,
    ...(redisReplicas !== undefined ? { redisReplicas } : {}),
  });
  serviceStack.addStackDependency(keyStack);
  return { keyStack, serviceStack };
}
