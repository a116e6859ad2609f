import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { encodeLine, LineSplitter, readLines } from "./stdio-framing.js";

/** Every line the splitter gives for these chunks, the last one without "\n" included. */
function split(chunks: readonly (Uint8Array | string)[]): string[] {
  const splitter = new LineSplitter();
  const lines = chunks.flatMap((chunk) => splitter.push(chunk));
  const last = splitter.end();
  return last === undefined ? lines : [...lines, last];
}

/** `bytes` cut at each of the given offsets. */
function cut(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  return [0, ...offsets].map((start, index) => bytes.subarray(start, offsets[index] ?? bytes.length));
}

const awkward = "é\u2028\u2029😀";

describe("LineSplitter", () => {
  it("ends a line at \\n only: U+2028, U+2029 and a lone \\r stay inside it", () => {
    expect(split([`a\u2028b\u2029c\rd\n"${awkward}"\n`])).toEqual([`a\u2028b\u2029c\rd`, `"${awkward}"`]);
  });

  it("gives a multi-byte character cut at any byte across two chunks whole", () => {
    const line = `{"text":"${awkward}"}`;
    const bytes = Buffer.from(`${line}\n`);
    for (let offset = 1; offset < bytes.length; offset += 1) {
      expect(split(cut(bytes, [offset])), `cut at byte ${offset}`).toEqual([line]);
    }
  });

  it("gives the same lines when every byte is its own chunk", () => {
    const text = `one ${awkward}\r\ntwo\n\nthree ${awkward}`;
    const bytes = Buffer.from(text);
    expect(split(cut(bytes, [...bytes.keys()].slice(1)))).toEqual([
      "one é\u2028\u2029😀",
      "two",
      "",
      "three é\u2028\u2029😀",
    ]);
  });

  it("drops the \\r of a \\r\\n, also when the two arrive in separate chunks", () => {
    expect(split(["first\r", "\nsecond\r\n"])).toEqual(["first", "second"]);
    expect(split(["only\r"])).toEqual(["only"]);
  });

  it("gives blank lines as they are, for the transport to skip", () => {
    expect(split(["\n\r\n  \nx\n"])).toEqual(["", "", "  ", "x"]);
  });

  it("keeps a last line without \\n for the end, and gives nothing more after a closing \\n", () => {
    const splitter = new LineSplitter();
    expect(splitter.push("done\npart")).toEqual(["done"]);
    expect(splitter.push("ial")).toEqual([]);
    expect(splitter.end()).toBe("partial");
    expect(splitter.end()).toBeUndefined();
    expect(split(["closed\n"])).toEqual(["closed"]);
  });

  it("takes chunks as strings, Buffers or other Uint8Arrays", () => {
    const bytes = new TextEncoder().encode(`b ${awkward}\n`);
    expect(split(["a \u2028", bytes.subarray(0, 4), Buffer.from(bytes.subarray(4))])).toEqual([
      `a \u2028b ${awkward}`,
    ]);
  });
});

describe("readLines", () => {
  it("reads a stream's lines until it ends, with its last line without \\n", async () => {
    const input = new PassThrough();
    const bytes = Buffer.from(`{"a":"${awkward}"}\r\n{"b":1}\n{"c":"${awkward}"}`);
    for (const piece of cut(bytes, [8, 9, 10, 25, 26])) input.write(piece);
    input.end();
    const lines: string[] = [];
    for await (const line of readLines(input)) lines.push(line);
    expect(lines).toEqual([`{"a":"${awkward}"}`, '{"b":1}', `{"c":"${awkward}"}`]);
  });
});

describe("encodeLine", () => {
  it("writes U+2028 and U+2029 escaped, and the line parses back to the same message", () => {
    const message = { jsonrpc: "2.0", id: 1, result: { text: `a${awkward}b`, "k\u2028": "\u2029" } };
    const line = encodeLine(message);
    expect(line).not.toMatch(/[\u2028\u2029]/);
    expect(line).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"text":"aé\\u2028\\u2029😀b","k\\u2028":"\\u2029"}}\n',
    );
    expect(split([line])).toHaveLength(1);
    expect(JSON.parse(line)).toEqual(message);
  });
});
