import { roundtripVitestConfig } from "../../vitest.shared.ts";

// One npm install of the tarballs into a fresh project, from the registry or npm's cache, and a type
// check of every example: allow for both on a loaded machine.
export default roundtripVitestConfig("pack", { testTimeout: 1_200_000 });
