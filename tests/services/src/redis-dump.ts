import { createClient } from "redis";

/**
 * Everything a Redis holds, keys and values, as one text: what an operator's dump, a backup or
 * anyone with read access to the store would see.
 */
export async function dumpRedis(url: string): Promise<string> {
  const client = createClient({ url });
  await client.connect();
  try {
    const lines: string[] = [];
    for await (const keys of client.scanIterator({ COUNT: 500 })) {
      for (const key of keys) {
        const type = await client.type(key);
        let value: unknown;
        switch (type) {
          case "string":
            value = await client.get(key);
            break;
          case "hash":
            value = await client.hGetAll(key);
            break;
          case "list":
            value = await client.lRange(key, 0, -1);
            break;
          case "set":
            value = await client.sMembers(key);
            break;
          case "zset":
            value = await client.zRange(key, 0, -1);
            break;
          case "stream":
            value = await client.xRange(key, "-", "+");
            break;
          default:
            value = `(${type})`;
        }
        lines.push(`${key} ${JSON.stringify(value)}`);
      }
    }
    return lines.join("\n");
  } finally {
    client.destroy();
  }
}
