import { roundtripVitestConfig } from "../../vitest.shared.ts";

export default roundtripVitestConfig("services", { testTimeout: 300_000 });
