#!/usr/bin/env node
import { runKeygen } from "./keygen-command.js";

process.exitCode = await runKeygen(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
