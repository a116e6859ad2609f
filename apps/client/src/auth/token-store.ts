import { createHash } from "node:crypto";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { StoredTokens, TokenStore } from "@roundtrip/sdk/oauth-client";
import { readOptionalFile, writePrivateFile } from "../private-file.js";

interface IssuerFile {
  issuer: string;
  /** By the SDK's token store key (issuer, resource and client). */
  tokens: Record<string, StoredTokens>;
}

/**
 * The SDK's TokenStore on disk: one 0600 file per issuer under <home>/tokens (directory 0700), written
 * atomically. Access and refresh tokens live only here, never in the config file or in any output.
 */
export class FileTokenStore implements TokenStore {
  readonly dir: string;

  constructor(home: string) {
    this.dir = join(home, "tokens");
  }

  /** A readable, collision-free name: the issuer's host and a digest of the whole issuer. */
  #fileFor(issuer: string): string {
    const host = (() => {
      try {
        return new URL(issuer).host.replace(/[^a-zA-Z0-9.-]/g, "_");
      } catch {
        return "issuer";
      }
    })();
    const digest = createHash("sha256").update(issuer).digest("hex").slice(0, 16);
    return join(this.dir, `${host}-${digest}.json`);
  }

  async #files(): Promise<string[]> {
    try {
      return (await readdir(this.dir))
        .filter((name) => name.endsWith(".json"))
        .map((name) => join(this.dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  async #read(path: string): Promise<IssuerFile | undefined> {
    const text = await readOptionalFile(path);
    if (text === undefined) return undefined;
    try {
      const parsed = JSON.parse(text) as IssuerFile;
      return typeof parsed.issuer === "string" && typeof parsed.tokens === "object" ? parsed : undefined;
    } catch {
      // A damaged file holds nothing usable; the next sign-in rewrites it.
      return undefined;
    }
  }

  async #write(path: string, file: IssuerFile): Promise<void> {
    if (Object.keys(file.tokens).length === 0) await rm(path, { force: true });
    else await writePrivateFile(path, `${JSON.stringify(file, null, 2)}\n`);
  }

  async get(key: string): Promise<StoredTokens | undefined> {
    for (const path of await this.#files()) {
      const tokens = (await this.#read(path))?.tokens[key];
      if (tokens) return tokens;
    }
    return undefined;
  }

  async set(key: string, tokens: StoredTokens): Promise<void> {
    const path = this.#fileFor(tokens.issuer);
    // A key lives under one issuer only: if the resource moved to another issuer, drop the old copy.
    await this.delete(key);
    const file = (await this.#read(path)) ?? { issuer: tokens.issuer, tokens: {} };
    file.tokens[key] = tokens;
    await this.#write(path, file);
  }

  async delete(key: string): Promise<void> {
    for (const path of await this.#files()) {
      const file = await this.#read(path);
      if (file && key in file.tokens) {
        delete file.tokens[key];
        await this.#write(path, file);
      }
    }
  }

  /** Every stored entry, for logout and status; callers never print the tokens themselves. */
  async entries(): Promise<{ key: string; tokens: StoredTokens }[]> {
    const all: { key: string; tokens: StoredTokens }[] = [];
    for (const path of await this.#files()) {
      const file = await this.#read(path);
      for (const [key, tokens] of Object.entries(file?.tokens ?? {})) all.push({ key, tokens });
    }
    return all;
  }

  /** Deletes the entries `matches` selects; returns how many. */
  async deleteWhere(matches: (tokens: StoredTokens) => boolean): Promise<number> {
    let removed = 0;
    for (const { key, tokens } of await this.entries()) {
      if (matches(tokens)) {
        await this.delete(key);
        removed += 1;
      }
    }
    return removed;
  }
}
