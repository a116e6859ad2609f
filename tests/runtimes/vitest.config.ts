import { roundtripVitestConfig } from "../../vitest.shared.ts";

export default roundtripVitestConfig("runtimes");
