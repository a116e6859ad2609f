#!/usr/bin/env node
// Committed, unlike dist/: `pnpm demo` runs this file, after building the demo and what it runs
// (scripts/demo/prepare.mjs). Before `pnpm build` this fails with "Cannot find module …/dist/…".
import "../dist/main.js";
