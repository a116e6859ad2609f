import { CfnOutput, RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import * as kms from "aws-cdk-lib/aws-kms";
import type { Construct } from "constructs";

export interface KeyStackProps extends StackProps {
  /** The alias operators name in `roundtrip-kms-keygen --key-id`. */
  readonly aliasName: string;
}

/**
 * The KMS key that wraps the requestState data keys. It lives in its own stack because it comes
 * first: operators mint the wrapped keys under it, then deploy the service with them.
 */
export class KeyStack extends Stack {
  readonly key: kms.Key;
  readonly alias: kms.Alias;

  constructor(scope: Construct, id: string, props: KeyStackProps) {
    super(scope, id, props);
    this.key = new kms.Key(this, "RequestStateKey", {
      description: "Wraps the Roundtrip requestState data keys (roundtrip-kms-keygen)",
      // Yearly rotation of the backing material; KMS keeps every earlier version, so wrapped keys
      // minted before a rotation still unwrap and nothing needs to be redeployed.
      enableKeyRotation: true,
      // Deleting the key would make every wrapped key, and so every sealed round, unrecoverable.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.alias = new kms.Alias(this, "RequestStateKeyAlias", {
      aliasName: props.aliasName,
      targetKey: this.key,
    });
    new CfnOutput(this, "KeyArn", {
      value: this.key.keyArn,
      description: "KMS_KEY_ID of the service; the --key-id for roundtrip-kms-keygen",
    });
    new CfnOutput(this, "KeyAlias", { value: this.alias.aliasName });
  }
}
