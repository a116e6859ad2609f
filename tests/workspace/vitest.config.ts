import { roundtripVitestConfig } from "../../vitest.shared.ts";

export default roundtripVitestConfig("workspace", { testTimeout: 120_000 });
