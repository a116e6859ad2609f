import { roundtripVitestConfig } from "../../vitest.shared.ts";

// The demo starts two servers and about a dozen CLI processes one after the other: allow for a busy machine.
export default roundtripVitestConfig("demo", { testTimeout: 480_000 });
