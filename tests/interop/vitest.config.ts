import { roundtripVitestConfig } from "../../vitest.shared.ts";

// Every v1 stdio test starts the scenario server as a child process: a cold start on a busy 2-core
// machine takes a good part of the default 20 s on its own.
export default roundtripVitestConfig("interop", { testTimeout: 120_000 });
