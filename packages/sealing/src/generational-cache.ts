/**
 * A memo that keeps the last `generation` to `2 × generation` entries and forgets in bulk: once the
 * young generation is full it becomes the old one, and the old one is dropped whole. For a key
 * written once per call on the hot path (a fresh principal claim per token), where evicting one
 * entry per insert from a Map leaves deleted slots that V8 keeps compacting, at a cost close to the
 * hash the memo is there to save.
 */
export class GenerationalCache<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();

  readonly generation: number;

  constructor(generation: number) {
    this.generation = generation;
  }

  get(key: K): V | undefined {
    const young = this.#young.get(key);
    return young !== undefined ? young : this.#old.get(key);
  }

  set(key: K, value: V): void {
    if (this.#young.size >= this.generation) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
