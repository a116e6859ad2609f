import { roundtripVitestConfig } from "../../vitest.shared.ts";

// The image test runs `pnpm deploy` and starts the server from its output: allow for a busy machine.
export default roundtripVitestConfig("infra", { testTimeout: 120_000 });
