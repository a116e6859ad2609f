import { roundtripVitestConfig } from "../../vitest.shared.ts";

// The dry run builds (replayed from turbo's cache when nothing changed), packs twice and asks the
// registry about each tarball: allow for all of it on a loaded machine.
export default roundtripVitestConfig("release", { testTimeout: 600_000 });
