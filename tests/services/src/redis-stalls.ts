import type { RedisServer } from "./redis-server.js";

/** A way a redis-server stops taking what its clients send, from `begin()` until `end()`. */
export interface RedisStall {
  name: string;
  /** What Redis answers a write with meanwhile; undefined when it answers nothing at all. */
  refusal: RegExp | undefined;
  begin(): Promise<unknown>;
  end(): Promise<unknown>;
}

/** What the stalls act on. */
export interface StallTarget {
  /** The server that stalls. */
  redis: RedisServer;
  /** Another server, which `redis` follows while it is a read-only replica. */
  primary: RedisServer;
  /** Sends one command to `redis` on a connection of the test's own, not one of the code under test. */
  command(args: string[]): Promise<unknown>;
}

export interface RedisStalls {
  /** The process stopped where it stands (`freeze()`): it takes what clients write and answers nothing. */
  frozen: RedisStall;
  /** CLIENT PAUSE WRITE: every connection but the one that paused it waits on a write. */
  writesPaused: RedisStall;
  /** maxmemory below what it holds, under noeviction: a write is refused with OOM. */
  outOfMemory: RedisStall;
  /** A replica of `primary`: a write is refused with READONLY. */
  readOnlyReplica: RedisStall;
  /** The four, in that order. */
  all: RedisStall[];
}

/**
 * The stalls a suite runs its Redis code against. `target` is read only when a stall begins or ends,
 * so the stalls can be listed when a test file loads (for `it.each`) and the servers started later.
 */
export function redisStalls(target: () => StallTarget): RedisStalls {
  const frozen: RedisStall = {
    name: "frozen (SIGSTOP)",
    refusal: undefined,
    begin: async () => target().redis.freeze(),
    end: async () => target().redis.thaw(),
  };
  const writesPaused: RedisStall = {
    name: "holding writes (CLIENT PAUSE WRITE)",
    refusal: undefined,
    begin: () => target().command(["CLIENT", "PAUSE", "60000", "WRITE"]),
    end: () => target().command(["CLIENT", "UNPAUSE"]),
  };
  const outOfMemory: RedisStall = {
    name: "out of memory under noeviction",
    refusal: /OOM command not allowed/,
    begin: async () => {
      await target().command(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
      await target().command(["CONFIG", "SET", "maxmemory", "1"]);
    },
    end: () => target().command(["CONFIG", "SET", "maxmemory", "0"]),
  };
  const readOnlyReplica: RedisStall = {
    name: "a read-only replica",
    refusal: /READONLY You can't write against a read only replica/,
    begin: async () => {
      const { command, primary } = target();
      // The sync is loaded from the socket, never written as dump.rdb into the test's folder.
      await command(["CONFIG", "SET", "repl-diskless-load", "swapdb"]);
      await command(["REPLICAOF", "127.0.0.1", String(primary.port)]);
      // Until the first sync is done it may answer LOADING instead of READONLY.
      const deadline = Date.now() + 30_000;
      while (!String(await command(["INFO", "replication"])).includes("master_link_status:up")) {
        if (Date.now() > deadline)
          throw new Error(`redis-server did not sync from port ${primary.port} in 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    end: () => target().command(["REPLICAOF", "NO", "ONE"]),
  };
  return {
    frozen,
    writesPaused,
    outOfMemory,
    readOnlyReplica,
    all: [frozen, writesPaused, outOfMemory, readOnlyReplica],
  };
}

/** Runs `body` while `stall` lasts, and ends the stall however `body` ends. */
export async function duringStall<T>(stall: RedisStall, body: () => Promise<T>): Promise<T> {
  await stall.begin();
  try {
    return await body();
  } finally {
    await stall.end();
  }
}
