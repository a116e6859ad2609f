/**
 * Remembers every secret a test handles (access tokens, requestState as sealed and as plaintext,
 * answers) and finds any of them in captured log text afterwards.
 */
export class LeakWatch {
  readonly #secrets = new Map<string, string>();

  /** `what` names the secret in a failure message; the value itself is never printed. */
  remember(what: string, value: string | undefined): void {
    if (value !== undefined && value.length >= 8) this.#secrets.set(value, what);
  }

  /** The kinds of secret found in `text`, e.g. `["access token of alice"]`. */
  leaksIn(text: string): string[] {
    return [...this.#secrets].filter(([value]) => text.includes(value)).map(([, what]) => what);
  }

  get size(): number {
    return this.#secrets.size;
  }
}
