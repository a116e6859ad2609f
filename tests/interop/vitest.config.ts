import { roundtripVitestConfig } from "../../vitest.shared.ts";

// Every v1 stdio test starts the scenario server as a child process: a cold start on a busy 2-core
// machine can take longer than a minute, so the suite waits generously: a hang still fails it.
export default roundtripVitestConfig("interop", { testTimeout: 300_000 });
