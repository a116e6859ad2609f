import { roundtripVitestConfig } from "../../vitest.shared.ts";

// Real processes on a shared 2-core machine: a rolling restart alone takes several seconds.
export default roundtripVitestConfig("fleet", { testTimeout: 300_000 });
