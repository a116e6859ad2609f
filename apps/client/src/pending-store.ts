import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { CARRIER_METHODS, type Implementation, InputRequestSchema } from "@roundtrip/sdk/protocol";
import * as z from "zod";
import { CliError, ExitCode } from "./exit-codes.js";
import { namesIn, readOptionalFile, writePrivateFile } from "./private-file.js";

const PendingFlowSchema = z.object({
  version: z.literal(1),
  id: z.string(),
  createdAt: z.string(),
  server: z.string(),
  method: z.enum(CARRIER_METHODS),
  /** The tool or prompt name, or the resource URI. */
  target: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** Kept exactly as the server sent it and echoed byte for byte on resume; never shown. */
  requestState: z.string().optional(),
  inputRequests: z.record(z.string(), InputRequestSchema),
  /** The keys that were waiting for a person when the flow was saved. */
  waiting: z.array(z.string()),
  serverInfo: z
    .looseObject({ name: z.string(), version: z.string(), title: z.string().optional() })
    .optional(),
});
export type PendingFlow = z.output<typeof PendingFlowSchema>;

/** The id of a saved flow or task: what `resume` takes. */
export const PENDING_ID = /^[a-z0-9]{10}$/;

/**
 * Flows saved by --detach, one 0600 file each under <home>/pending, so that `roundtrip resume <id>` can
 * finish them from another process (and another day, within the server's requestState lifetime).
 */
export class PendingStore {
  readonly dir: string;

  constructor(home: string) {
    this.dir = join(home, "pending");
  }

  static newId(): string {
    return randomBytes(5).toString("hex");
  }

  #path(id: string): string {
    if (!PENDING_ID.test(id)) {
      throw new CliError(
        ExitCode.usage,
        `"${id}" is not a pending flow id; \`roundtrip pending\` lists them`,
      );
    }
    return join(this.dir, `${id}.json`);
  }

  async save(
    flow: Omit<PendingFlow, "version" | "serverInfo"> & { serverInfo?: Implementation | undefined },
  ): Promise<void> {
    const { serverInfo, ...rest } = flow;
    const record: PendingFlow = { version: 1, ...rest, ...(serverInfo ? { serverInfo } : {}) };
    await writePrivateFile(this.#path(flow.id), `${JSON.stringify(record, null, 2)}\n`);
  }

  async load(id: string): Promise<PendingFlow> {
    const path = this.#path(id);
    const text = await readOptionalFile(path);
    if (text === undefined) {
      throw new CliError(
        ExitCode.usage,
        `no pending flow "${id}" in ${this.dir}; \`roundtrip pending\` lists them`,
      );
    }
    const parsed = PendingFlowSchema.safeParse(JSON.parse(text));
    if (!parsed.success) {
      throw new CliError(
        ExitCode.usage,
        `${path} is not a pending flow this version can resume; delete it with \`roundtrip pending --delete ${id}\``,
      );
    }
    return parsed.data;
  }

  async list(): Promise<PendingFlow[]> {
    const names = await namesIn(this.dir);
    const flows: PendingFlow[] = [];
    for (const name of names) {
      const id = name.replace(/\.json$/, "");
      if (!name.endsWith(".json") || !PENDING_ID.test(id)) continue;
      const parsed = PendingFlowSchema.safeParse(
        JSON.parse((await readOptionalFile(join(this.dir, name))) ?? "null"),
      );
      if (parsed.success) flows.push(parsed.data);
    }
    return flows.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async delete(id: string): Promise<void> {
    await rm(this.#path(id), { force: true });
  }
}
