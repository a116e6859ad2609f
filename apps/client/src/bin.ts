#!/usr/bin/env node
import module from "node:module";

// Every run loads a few hundred modules; Node's on-disk compile cache spares compiling them again on
// each start. Enabled before the CLI is imported, since static imports would be compiled first. Node
// 22.0 has no compile cache, and a named import of it would fail to link there.
module.enableCompileCache?.();
const { main } = await import("./cli.js");

process.exitCode = await main(process.argv.slice(2));
