#!/usr/bin/env node
// Committed, unlike dist/: pnpm links a bin when it installs only if the file exists, and dist/ comes
// later, with the build. Before `pnpm build` this fails with "Cannot find module …/dist/…".
import "../dist/bin.js";
