import { roundtripVitestConfig } from "../../vitest.shared.ts";

// End-to-end suites start an authorization server, moto_server and child processes: allow for a slow CI.
export default roundtripVitestConfig("server", { testTimeout: 120_000 });
