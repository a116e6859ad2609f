import { roundtripVitestConfig } from "../../vitest.shared.ts";

// One npm install of the tarballs into a fresh project, from the registry or npm's cache: allow for it.
export default roundtripVitestConfig("pack", { testTimeout: 420_000 });
