import { mkdtemp, readdir, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileTokenStore } from "./token-store.js";

const tokens = (issuer: string, accessToken: string) => ({
  issuer,
  resource: "https://mcp.example.com/mcp",
  clientId: "c",
  accessToken,
  tokenType: "Bearer",
});

describe("the token file store", () => {
  it("keeps one private file per issuer, and moves a key when its issuer changes", async () => {
    const home = await mkdtemp(join(tmpdir(), "roundtrip-tokens-"));
    const store = new FileTokenStore(home);
    await store.set("k1", tokens("https://a.example.com", "one"));
    await store.set("k2", tokens("https://b.example.com", "two"));
    expect((await readdir(store.dir)).sort()).toHaveLength(2);
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
    for (const name of await readdir(store.dir))
      expect((await stat(join(store.dir, name))).mode & 0o777).toBe(0o600);
    expect((await store.get("k1"))?.accessToken).toBe("one");

    await store.set("k1", tokens("https://b.example.com", "three"));
    const files = await readdir(store.dir);
    expect(files).toHaveLength(1);
    const only = JSON.parse(await readFile(join(store.dir, files[0]!), "utf8")) as {
      tokens: Record<string, unknown>;
    };
    expect(Object.keys(only.tokens).sort()).toEqual(["k1", "k2"]);

    expect(await store.deleteWhere((t) => t.accessToken === "two")).toBe(1);
    await store.delete("k1");
    expect(await store.get("k1")).toBeUndefined();
    expect(await readdir(store.dir)).toHaveLength(0);
  });
});
