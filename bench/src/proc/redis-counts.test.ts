import { describe, expect, it } from "vitest";
import { parseCommandStats, scriptCalls, totalCommands } from "./redis-counts.js";

/** The shape redis-server 7 answers `INFO commandstats` with (CRLF line ends, a section header). */
const INFO = [
  "# Commandstats",
  "cmdstat_set:calls=7,usec=40,usec_per_call=5.71,rejected_calls=0,failed_calls=0",
  "cmdstat_evalsha:calls=3,usec=90,usec_per_call=30.00,rejected_calls=0,failed_calls=0",
  "cmdstat_config|resetstat:calls=1,usec=30,usec_per_call=30.00,rejected_calls=0,failed_calls=0",
  "cmdstat_eval:calls=2,usec=70,usec_per_call=35.00,rejected_calls=0,failed_calls=1",
  "",
].join("\r\n");

describe("Redis command counts", () => {
  it("reads the calls of every command, subcommands under their own name", () => {
    expect(parseCommandStats(INFO)).toEqual({ set: 7, evalsha: 3, "config|resetstat": 1, eval: 2 });
  });

  it("is empty for a server that ran nothing", () => {
    expect(parseCommandStats("# Commandstats\r\n")).toEqual({});
  });

  it("sums every command, and apart the script calls", () => {
    const counts = { set: 7, evalsha: 3, eval: 2, get: 3 };
    expect(totalCommands(counts)).toBe(15);
    expect(scriptCalls(counts)).toBe(5);
  });
});
