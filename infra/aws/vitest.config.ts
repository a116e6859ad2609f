import { roundtripVitestConfig } from "../../vitest.shared.ts";

// `cdk synth` runs the app in a child process (about 11 s on a quiet 2-core machine), then cfn-lint, a
// Python program: on a loaded machine each can take minutes, and neither's speed is what is tested.
export default roundtripVitestConfig("infra-aws", { testTimeout: 600_000 });
