import { createClient } from "redis";

export interface RedisDump {
  keys: string[];
  /** Every key with its type and value, one per line: what an operator's dump or a backup shows. */
  text: string;
}

const READ: Record<string, (key: string) => string[]> = {
  string: (key) => ["GET", key],
  hash: (key) => ["HGETALL", key],
  list: (key) => ["LRANGE", key, "0", "-1"],
  set: (key) => ["SMEMBERS", key],
  zset: (key) => ["ZRANGE", key, "0", "-1", "WITHSCORES"],
  stream: (key) => ["XRANGE", key, "-", "+"],
};

/**
 * Everything a Redis holds, read key by key by its type, as anyone with read access to the store (or
 * to a backup of it) would see it. A type it cannot read fails the dump rather than be left out. A key
 * that expires or is deleted between the scan and its read (type `none`: a readiness probe's short-lived
 * key, say) held nothing by the time it was read and is left out.
 */
export async function dumpRedis(url: string): Promise<RedisDump> {
  const client = createClient({ url, disableOfflineQueue: true });
  client.on("error", () => {});
  await client.connect();
  try {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ COUNT: 500 })) keys.push(...batch);
    const lines: string[] = [];
    const present: string[] = [];
    for (const key of keys) {
      const type = String(await client.sendCommand(["TYPE", key]));
      if (type === "none") continue;
      const read = READ[type];
      if (read === undefined) throw new Error(`key ${key} has type ${type}, which the dump cannot read`);
      present.push(key);
      lines.push(`${key} ${type} ${JSON.stringify(await client.sendCommand(read(key)))}`);
    }
    return { keys: present, text: lines.join("\n") };
  } finally {
    client.destroy();
  }
}
