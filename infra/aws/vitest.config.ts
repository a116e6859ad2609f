import { roundtripVitestConfig } from "../../vitest.shared.ts";

// `cdk synth` runs the app in a child process (about 11 s on a 2-core machine), then cfn-lint.
export default roundtripVitestConfig("infra-aws", { testTimeout: 120_000 });
