import { roundtripVitestConfig } from "../../vitest.shared.ts";

// Real processes (servers, an authorization server, Redis, nginx) on a shared 2-core machine.
export default roundtripVitestConfig("security", { testTimeout: 300_000 });
