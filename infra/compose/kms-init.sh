#!/bin/sh
# LocalStack runs this once KMS is ready: it creates the symmetric key that wraps the requestState data
# keys, under the alias the keygen service and both replicas name. LocalStack keeps no state across a
# restart, so a new container gets a new key; see infra/README.md for resetting the stored wrapped key.
set -eu
if awslocal kms describe-key --key-id alias/roundtrip >/dev/null 2>&1; then
  exit 0
fi
key_id=$(awslocal kms create-key --description "Roundtrip requestState (local)" --query KeyMetadata.KeyId --output text)
awslocal kms create-alias --alias-name alias/roundtrip --target-key-id "$key_id"
echo "created KMS key $key_id as alias/roundtrip"
