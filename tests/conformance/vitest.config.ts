import { roundtripVitestConfig } from "../../vitest.shared.ts";

// One conformance run serves every scenario test; it spawns the suite under Node 22, so allow it time.
export default roundtripVitestConfig("conformance", { testTimeout: 120_000 });
