import { randomBytes } from "node:crypto";
import { startProxy } from "../fleet/nginx.js";
import { type RunningServer, startServerChild } from "../proc/children.js";
import { MEMORY_SAMPLE_MS, MemorySampler } from "../proc/memory.js";
import { FLEET_KEY_ENV, type Target } from "../targets/catalog.js";
import { drive, total } from "./drive.js";
import type { MeasureOptions } from "./measure.js";
import { profileArgs } from "./profile-args.js";
import type { TargetRun } from "./target-run.js";

/**
 * `instances` servers of the target's kind under one fresh sealing key, behind nginx round-robin,
 * driven through nginx. Pinned, every instance shares CPU 0 (the cores left to servers on this
 * machine) and nginx runs with the driver on CPU 1: the instances' summed CPU per flow is then the
 * fleet's cost, comparable with one instance's, and nginx's own is reported beside it.
 */
export async function measureFleet(
  target: Target,
  instances: number,
  options: MeasureOptions,
): Promise<TargetRun> {
  const key = randomBytes(32).toString("hex");
  const run: TargetRun = {
    name: target.name,
    label: target.label,
    flow: target.flow,
    load: undefined,
    peakRssMiB: 0,
  };
  const servers: RunningServer[] = [];
  const samplers: MemorySampler[] = [];
  try {
    for (let i = 0; i < instances; i++) {
      const server = await startServerChild(target.server, {
        nodeArgs: profileArgs(options.profileDir, `${target.name}-${i + 1}`),
        env: { [FLEET_KEY_ENV]: key },
        ...(options.pin ? { cpu: 0 } : {}),
      });
      servers.push(server);
      samplers.push(new MemorySampler(server.pid, MEMORY_SAMPLE_MS));
    }
    const proxy = await startProxy(
      servers.map((server) => server.port),
      { keepalive: options.concurrency, ...(options.pin ? { cpu: 1 } : {}) },
    );
    try {
      const driven = await drive(target, proxy.port, [...servers.map((s) => s.pid), proxy.pid], options);
      run.load = driven.load;
      const perInstance = driven.cpuSeconds.slice(0, instances);
      const cpu = total(perInstance);
      if (cpu !== undefined) run.serverCpuSeconds = cpu;
      const proxyCpu = driven.cpuSeconds[instances];
      run.fleet = { instances, ...(proxyCpu === undefined ? {} : { proxyCpuSeconds: proxyCpu }) };
      if (driven.failure !== undefined) run.failure = driven.failure;
    } finally {
      await proxy.stop();
    }
  } catch (error) {
    run.failure ??= error instanceof Error ? error.message : String(error);
  } finally {
    for (const sampler of samplers) sampler.stop();
    // The largest instance, comparable with a single server's peak.
    run.peakRssMiB = Math.max(0, ...samplers.map((sampler) => sampler.peakMiB));
    await Promise.all(servers.map((server) => server.stop()));
  }
  return run;
}
