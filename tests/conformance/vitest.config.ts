import { roundtripVitestConfig } from "../../vitest.shared.ts";

// One conformance run, in a child process, serves every scenario test: allow it time.
export default roundtripVitestConfig("conformance", { testTimeout: 120_000 });
