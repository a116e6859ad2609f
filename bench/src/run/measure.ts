import { startServerChild } from "../proc/children.js";
import { MEMORY_SAMPLE_MS, MemorySampler } from "../proc/memory.js";
import type { Target } from "../targets/catalog.js";
import { type DriveOptions, drive } from "./drive.js";
import { measureFleet } from "./measure-fleet.js";
import { MeasuredWindow } from "./measured-window.js";
import { profileArgs } from "./profile-args.js";
import type { TargetRun } from "./target-run.js";

export interface MeasureOptions extends DriveOptions {
  /** Server on CPU 0, driver on CPU 1. */
  pin: boolean;
  /** Where the server writes a V8 CPU profile, when profiling. */
  profileDir?: string;
}

/** Starts the target's server (or its fleet), drives it from a separate process, and stops it again. */
export async function measureTarget(target: Target, options: MeasureOptions): Promise<TargetRun> {
  if (target.fleet) return measureFleet(target, target.fleet, options);
  const nodeArgs = profileArgs(options.profileDir, target.name);
  const server = await startServerChild(target.server, { nodeArgs, ...(options.pin ? { cpu: 0 } : {}) });
  const memory = new MemorySampler(server.pid, MEMORY_SAMPLE_MS);
  const run: TargetRun = {
    name: target.name,
    label: target.label,
    flow: target.flow,
    load: undefined,
    peakRssMiB: 0,
  };
  try {
    const window = new MeasuredWindow(server);
    const driven = await drive(target, server.port, [server.pid], options, window.onPhase);
    run.load = driven.load;
    const [cpu] = driven.cpuSeconds;
    if (cpu !== undefined) run.serverCpuSeconds = cpu;
    if (driven.failure !== undefined) run.failure = driven.failure;
    const closed = await window.closed().catch((error: unknown) => {
      run.failure ??= `the measured window: ${error instanceof Error ? error.message : String(error)}`;
      return undefined;
    });
    if (closed?.redisCommands) run.redisCommands = closed.redisCommands;
    if (closed) run.runtime = closed.runtime;
  } finally {
    memory.stop();
    run.peakRssMiB = memory.peakMiB;
    await server.stop();
  }
  return run;
}
