import { readFileSync } from "node:fs";

export interface MemoryReading {
  /** Resident set size now, in MiB. */
  rssMiB: number;
  /** The kernel's high-water mark of the resident set (VmHWM), in MiB. */
  peakMiB: number;
}

function field(status: string, name: string): number | undefined {
  const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, "m").exec(status);
  return match?.[1] === undefined ? undefined : Number(match[1]) / 1024;
}

/** Reads a process's memory from /proc; undefined once it has exited (or off Linux). */
export function readMemory(pid: number): MemoryReading | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const rssMiB = field(status, "VmRSS");
  const peakMiB = field(status, "VmHWM");
  return rssMiB === undefined || peakMiB === undefined ? undefined : { rssMiB, peakMiB };
}

/** How often a target server's memory is read while it is measured. */
export const MEMORY_SAMPLE_MS = 200;

export interface RssSample {
  /** Seconds since sampling started. */
  t: number;
  rssMiB: number;
}

/**
 * Samples a process's RSS on a timer and keeps the highest VmHWM seen, so the peak survives even if
 * the process dies before the end of the run.
 */
export class MemorySampler {
  readonly samples: RssSample[] = [];
  peakMiB = 0;
  readonly #pid: number;
  readonly #start = performance.now();
  readonly #timer: NodeJS.Timeout;

  constructor(pid: number, intervalMs: number) {
    this.#pid = pid;
    this.sample();
    this.#timer = setInterval(() => this.sample(), intervalMs);
    this.#timer.unref();
  }

  sample(): MemoryReading | undefined {
    const reading = readMemory(this.#pid);
    if (reading) {
      this.peakMiB = Math.max(this.peakMiB, reading.peakMiB);
      this.samples.push({ t: (performance.now() - this.#start) / 1000, rssMiB: reading.rssMiB });
    }
    return reading;
  }

  stop(): void {
    this.sample();
    clearInterval(this.#timer);
  }
}
