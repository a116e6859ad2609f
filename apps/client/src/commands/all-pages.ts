/** A list request is followed for at most this many pages, so a server that always has more cannot loop us. */
const MAX_PAGES = 100;

/** Every item of a paginated list (tools, prompts, resources, templates), following nextCursor. */
export async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

export function cursorOf(cursor: string | undefined): { cursor?: string } {
  return cursor === undefined ? {} : { cursor };
}
