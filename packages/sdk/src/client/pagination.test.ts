import { afterEach, describe, expect, it } from "vitest";
import { McpError } from "../protocol/errors.js";
import { Server } from "../server/index.js";
import { Client } from "./client.js";
import { PaginationError } from "./errors.js";
import { type HttpPeer, serveOverHttp } from "./test-support/http-peer.js";

const PAGE_SIZE = 2;

/** `count` items named prefix-0…, two per page, under cursors "p1", "p2", …; `loop` sends "p1" back forever. */
function pagedServer(count: number, options: { loop?: boolean; privateFrom?: number } = {}) {
  const names = (prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  function page<T>(cursor: string | undefined, items: T[]) {
    const index = cursor === undefined ? 0 : Number(cursor.slice(1));
    if (Number.isNaN(index)) throw McpError.invalidParams(`Invalid cursor ${cursor}`);
    const start = index * PAGE_SIZE;
    const next = start + PAGE_SIZE < items.length ? `p${index + 1}` : undefined;
    const scope = options.privateFrom !== undefined && index >= options.privateFrom ? "private" : "public";
    return {
      items: items.slice(start, start + PAGE_SIZE),
      ttlMs: 60_000 - index * 1000,
      cacheScope: scope as "public" | "private",
      ...(options.loop ? { nextCursor: "p1" } : next === undefined ? {} : { nextCursor: next }),
    };
  }
  return new Server({ name: "paged", version: "1.0.0" })
    .onListTools((_ctx, { cursor }) => {
      const { items, ...rest } = page(
        cursor,
        names("tool").map((name) => ({ name, inputSchema: { type: "object" as const } })),
      );
      return { ...rest, tools: items };
    })
    .onListPrompts((_ctx, { cursor }) => {
      const { items, ...rest } = page(
        cursor,
        names("prompt").map((name) => ({ name })),
      );
      return { ...rest, prompts: items };
    })
    .onListResources((_ctx, { cursor }) => {
      const { items, ...rest } = page(
        cursor,
        names("doc").map((name) => ({ name, uri: `docs://${name}` })),
      );
      return { ...rest, resources: items };
    })
    .onListResourceTemplates((_ctx, { cursor }) => {
      const { items, ...rest } = page(
        cursor,
        names("tpl").map((name) => ({ name, uriTemplate: `${name}://{id}` })),
      );
      return { ...rest, resourceTemplates: items };
    })
    .onReadResource((_ctx, { uri }) => ({ contents: [{ uri, text: uri }] }));
}

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

async function clientOf(server: Server): Promise<{ client: Client; peer: HttpPeer }> {
  const peer = await serveOverHttp(server);
  peers.push(peer);
  return { client: new Client(peer.url), peer };
}

const listCalls = (peer: HttpPeer, method: string) => peer.seen.filter((seen) => seen.body.method === method);

describe("listing every page with all: true", () => {
  it("joins every page of each list in order, with no nextCursor", async () => {
    const { client, peer } = await clientOf(pagedServer(5));
    const tools = await client.listTools({ all: true });
    expect(tools.tools.map((tool) => tool.name)).toEqual(["tool-0", "tool-1", "tool-2", "tool-3", "tool-4"]);
    expect(tools).not.toHaveProperty("nextCursor");
    expect(
      listCalls(peer, "tools/list").map((seen) => (seen.body.params as { cursor?: string }).cursor),
    ).toEqual([undefined, "p1", "p2"]);
    expect((await client.listPrompts({ all: true })).prompts).toHaveLength(5);
    expect((await client.listResources({ all: true })).resources.at(-1)?.uri).toBe("docs://doc-4");
    expect((await client.listResourceTemplates({ all: true })).resourceTemplates).toHaveLength(5);
  });

  it("starts from a cursor, and one page stays one page without all", async () => {
    const { client } = await clientOf(pagedServer(5));
    const rest = await client.listTools({ all: true, cursor: "p1" });
    expect(rest.tools.map((tool) => tool.name)).toEqual(["tool-2", "tool-3", "tool-4"]);
    const one = await client.listTools({ cursor: "p1" });
    expect(one.tools).toHaveLength(2);
    expect(one.nextCursor).toBe("p2");
  });

  it("is fresh only as long as its stalest page, and private if any page is", async () => {
    const { client } = await clientOf(pagedServer(5, { privateFrom: 2 }));
    const all = await client.listTools({ all: true });
    expect(all.ttlMs).toBe(58_000);
    expect(all.cacheScope).toBe("private");
    const everyone = (await clientOf(pagedServer(3))).client;
    expect(await everyone.listTools({ all: true })).toMatchObject({ ttlMs: 59_000, cacheScope: "public" });
  });

  it("stops at maxPages (100 by default) with an error that says what to do", async () => {
    const { client, peer } = await clientOf(pagedServer(7));
    const error = (await client.listTools({ all: true, maxPages: 3 }).catch((e) => e)) as PaginationError;
    expect(error).toBeInstanceOf(PaginationError);
    expect(error).toMatchObject({
      code: "ERR_PAGINATION",
      reason: "max_pages",
      method: "tools/list",
      pages: 3,
    });
    expect(error.message).toMatch(/more than 3 pages; raise maxPages/);
    expect(listCalls(peer, "tools/list")).toHaveLength(3);
    const many = await clientOf(pagedServer(2 * 101));
    const tooMany = (await many.client.listPrompts({ all: true }).catch((e) => e)) as PaginationError;
    expect(tooMany).toMatchObject({ reason: "max_pages", pages: 100 });
    expect((await many.client.listPrompts({ all: true, maxPages: 101 })).prompts).toHaveLength(202);
  });

  it("refuses a server whose cursors loop, after the first repeat", async () => {
    const { client, peer } = await clientOf(pagedServer(5, { loop: true }));
    const error = (await client.listResources({ all: true }).catch((e) => e)) as PaginationError;
    expect(error).toMatchObject({ reason: "cursor_loop", pages: 2 });
    expect(error.message).toMatch(/pagination loops/);
    expect(listCalls(peer, "resources/list")).toHaveLength(2);
  });

  it("refuses a bound it cannot use, before sending anything", async () => {
    const { client, peer } = await clientOf(pagedServer(5));
    await expect(client.listTools({ all: true, maxPages: 0 })).rejects.toThrow(RangeError);
    await expect(client.listTools({ maxPages: 5 })).rejects.toThrow(/with all: true/);
    expect(listCalls(peer, "tools/list")).toHaveLength(0);
  });
});
