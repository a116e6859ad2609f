import { dumpRedis } from "@roundtrip/test-services";

/** Shorter strings could turn up inside ciphertext or an id by chance. */
const MIN_LENGTH = 8;

export interface AtRest {
  /** How many keys Redis holds. */
  keys: number;
  /** How many of the strings were searched for (those long enough to mean something). */
  searched: number;
  /** Those found in some key or value. */
  inClear: string[];
}

/** Reads every key and value Redis holds and looks for each of `known` in them. */
export async function redisAtRest(url: string, known: readonly string[]): Promise<AtRest> {
  const { keys, text: dump } = await dumpRedis(url);
  const searched = [...new Set(known)].filter((text) => text.length >= MIN_LENGTH);
  return {
    keys: keys.length,
    searched: searched.length,
    inClear: searched.filter((text) => dump.includes(text)),
  };
}
