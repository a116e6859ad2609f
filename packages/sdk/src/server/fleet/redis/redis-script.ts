import { createHash } from "node:crypto";

/**
 * A Lua script sent by its SHA-1 (`EVALSHA`), whole (`EVAL`) only when the Redis node it reaches has not
 * cached it: after a restart or a failover, and once on each node of a Cluster. A script of a few
 * hundred bytes then costs its 40-character digest per command instead of its text, and Redis does not
 * hash the text again on every call.
 */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash("sha1").update(source).digest("hex");
  }

  /**
   * Runs the script through `send` (whatever deadline and acknowledgement it adds). A reply that is not
   * NOSCRIPT, an error included, is the script's: only a node that lacks the script gets its text.
   */
  async run(
    send: (args: string[]) => Promise<unknown>,
    keys: readonly string[],
    args: readonly string[],
  ): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await send(["EVALSHA", this.#sha, ...tail]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return await send(["EVAL", this.#source, ...tail]);
    }
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}
