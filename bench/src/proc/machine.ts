import { spawnSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  date: string;
  /** The 1-minute load average when the run started: a busy machine makes every figure noisy. */
  loadAverage: number;
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? "unknown",
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    date: new Date().toISOString(),
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function machineLine(machine: Machine): string {
  return `${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.date} (load average ${machine.loadAverage} at start)`;
}

/** Pinning the server and the driver to their own CPU needs taskset and at least two CPUs. */
export function canPin(): boolean {
  if (cpus().length < 2) return false;
  return spawnSync("taskset", ["-c", "0", "true"], { stdio: "ignore" }).status === 0;
}
