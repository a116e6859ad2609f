import { roundtripVitestConfig } from "../../vitest.shared.ts";

// The suites run the built CLI as child processes against a real server and authorization server;
// the global setup compiles it once, since a per-process TypeScript loader would cost seconds per run.
export default roundtripVitestConfig("client", {
  testTimeout: 180_000,
  integrationSetup: ["test/support/build-cli.ts"],
});
