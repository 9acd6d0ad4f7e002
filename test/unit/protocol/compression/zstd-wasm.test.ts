/**
 * The Worker's zstd decoder (libzstd as WebAssembly, zstd-wasm.ts), compiled here from the
 * package's .wasm as workerd compiles the imported module: it reads what libzstd and our
 * encoder write, through zstdDecompress it gives the same error values as fzstd for truncated,
 * corrupt and oversized input, it never writes past the capacity it is handed nor grows its heap
 * past the bound, and a trap inside the module comes out as an error value, not an exception.
 */
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { CompressionError } from "../../../../src/protocol/compression/compression-error.ts";
import { useZstdDecoder, zstdDecoderName, zstdDecompress, type ZstdFrameDecoder } from "../../../../src/protocol/compression/zstd-decode.ts";
import { zstdCompress } from "../../../../src/protocol/compression/zstd-encode.ts";
import { zstdWasmDecoder } from "../../../../src/protocol/compression/zstd-wasm.ts";

const MiB = 1024 * 1024;
const bound = 8 * MiB;
/** Compiles bytes, as Node may (workers-types declares the constructor abstract: workerd forbids it). */
const compile = (bytes: Uint8Array) => new (WebAssembly.Module as unknown as new (bytes: Uint8Array) => WebAssembly.Module)(bytes);
const libzstd = compile(readFileSync(createRequire(import.meta.url).resolve("@foxglove/wasm-zstd/dist/wasm-zstd.wasm")));
const text = new TextEncoder().encode(JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ id: i, user: `user-${i % 97}`, ok: i % 3 === 0 }))));
const same = (a: Uint8Array, b: Uint8Array) => expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
const fzstd = zstdDecoderName();

/** The failure of `run` (a CompressionError's kind), or "none". */
function outcome(run: () => unknown): string {
  try {
    run();
    return "none";
  } catch (error) {
    if (!(error instanceof CompressionError)) throw error;
    return error.failure;
  }
}

/** `run` with `decoder` installed as zstdDecompress's decoder, the one before it back after. */
function withDecoder<T>(decoder: ZstdFrameDecoder, run: () => T): T {
  const before = useZstdDecoder(decoder);
  try {
    return run();
  } finally {
    useZstdDecoder(before);
  }
}

describe("libzstd as WebAssembly", () => {
  it("reads frames from libzstd (one-shot and streamed) and from our encoder", () => {
    const decoder = zstdWasmDecoder(libzstd);
    expect(decoder.name).toBe("libzstd (WebAssembly)");
    fc.assert(fc.property(fc.uint8Array({ maxLength: 5000 }), fc.nat(3), (bytes, repeat) => {
      const input = Buffer.concat(Array.from({ length: repeat + 1 }, () => bytes));
      same(decoder.decode(zlib.zstdCompressSync(input), input.length), input);
      same(decoder.decode(zstdCompress(input), input.length), input);
    }), { numRuns: 150 });
    const big = Buffer.concat(Array.from({ length: 40 }, () => text));
    const streamed = zlib.zstdCompressSync(big, { params: { [zlib.constants.ZSTD_c_checksumFlag]: 1, [zlib.constants.ZSTD_c_contentSizeFlag]: 0 } });
    same(decoder.decode(streamed, big.length), big);
    // Two frames and a skippable one between them.
    const skippable = Uint8Array.of(0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3);
    same(decoder.decode(Buffer.concat([zstdCompress(text), skippable, zlib.zstdCompressSync(text)]), 2 * text.length), Buffer.concat([text, text]));
  });

  it("stops at the capacity it is handed: a frame one byte larger is an error, and nothing is written past it", () => {
    const decoder = zstdWasmDecoder(libzstd);
    const streamed = zlib.zstdCompressSync(text, { params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 0 } });
    expect(outcome(() => decoder.decode(streamed, text.length - 1))).toBe("corrupt");
    expect(outcome(() => decoder.decode(zlib.zstdCompressSync(text), text.length - 1))).toBe("corrupt");
    same(decoder.decode(streamed, text.length), text);
  });

  it("grows its heap only to the bound: past it a decode is too large, and the decoder goes on", () => {
    const decoder = zstdWasmDecoder(libzstd, 4 * MiB);
    const large = new Uint8Array(3 * MiB).fill(7);
    expect(outcome(() => decoder.decode(zlib.zstdCompressSync(large), large.length))).toBe("too-large");
    same(decoder.decode(zstdCompress(text), text.length), text);
    // The default bound holds the largest decode the Worker asks for: a bomb's 8 MiB at the decompression bound.
    const full = zstdWasmDecoder(libzstd);
    expect(full.decode(zlib.zstdCompressSync(new Uint8Array(bound)), bound)).toHaveLength(bound);
  });

  it("a trap inside the module is an error value, and the next decode starts a fresh instance", () => {
    const decoder = zstdWasmDecoder(trappingModule());
    const failures = [0, 1, 2].map(() => {
      try {
        decoder.decode(text.subarray(0, 100), 1000);
      } catch (error) {
        return error instanceof CompressionError ? `${error.failure}: ${error.message}` : `thrown: ${String(error)}`;
      }
      return "decoded";
    });
    expect(failures).toEqual(Array.from({ length: 3 }, () => expect.stringMatching(/^corrupt: zstd: the decoder stopped: .*unreachable/)));
  });

  it("a module without the pinned exports is refused on first use, not mistaken for corrupt data", () => {
    const empty = compile(Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00));
    expect(() => zstdWasmDecoder(empty).decode(text, 1)).toThrow(/does not have @foxglove\/wasm-zstd 1\.0\.1's exports/);
  });
});

describe("zstdDecompress over libzstd: the same error values as over fzstd", () => {
  const wasm = zstdWasmDecoder(libzstd);

  it("the decoder installed is the one that runs", () => {
    expect(fzstd).toBe("fzstd");
    withDecoder(wasm, () => expect(zstdDecoderName()).toBe("libzstd (WebAssembly)"));
  });

  it("every truncation gives the error fzstd gives; corruptions are error values or bytes within the bound", () => {
    const frames = [zstdCompress(text), zlib.zstdCompressSync(text), zlib.zstdCompressSync(text, { params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 0, [zlib.constants.ZSTD_c_checksumFlag]: 1 } })];
    for (const frame of frames) {
      same(withDecoder(wasm, () => zstdDecompress(frame, bound)), text);
      for (let cut = 0; cut < frame.length; cut += Math.max(1, Math.floor(frame.length / 300))) {
        const truncated = frame.subarray(0, cut);
        const theirs = outcome(() => zstdDecompress(truncated, bound));
        expect(theirs).not.toBe("none");
        expect(withDecoder(wasm, () => outcome(() => zstdDecompress(truncated, bound)))).toBe(theirs);
      }
      fc.assert(fc.property(fc.nat(frame.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const damaged = frame.slice();
        damaged[at]! ^= flip;
        return withDecoder(wasm, () => {
          try {
            return zstdDecompress(damaged, bound).length <= bound;
          } catch (error) {
            return error instanceof CompressionError && error.failure !== "unknown-codec";
          }
        });
      }), { numRuns: 400 });
    }
  });

  it("bombs stop at the bound as too-large, declared size or not", () => {
    const zeros = new Uint8Array(64 * MiB);
    for (const bomb of [zlib.zstdCompressSync(zeros), zlib.zstdCompressSync(zeros.subarray(0, 20 * MiB), { params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 0 } })]) {
      expect(withDecoder(wasm, () => outcome(() => zstdDecompress(bomb, bound)))).toBe("too-large");
    }
    expect(withDecoder(wasm, () => zstdDecompress(zstdCompress(zeros.subarray(0, MiB)), bound))).toHaveLength(MiB);
  });
});

/**
 * A module with the pinned exports whose `decompress` executes `unreachable` (a trap), written
 * out byte by byte: types, functions, one page of memory, exports c d f g j, their bodies.
 */
function trappingModule(): WebAssembly.Module {
  const section = (id: number, bytes: number[]) => [id, bytes.length, ...bytes];
  const name = (letter: string) => [1, letter.charCodeAt(0)];
  const i32 = 0x7f;
  const types = [4, 0x60, 0, 0, 0x60, 1, i32, 1, i32, 0x60, 1, i32, 0, 0x60, 4, i32, i32, i32, i32, 1, i32];
  const functions = [4, 0, 1, 2, 3];
  const memory = [1, 0, 1];
  const exported = [5, ...name("c"), 2, 0, ...name("d"), 0, 0, ...name("f"), 0, 1, ...name("g"), 0, 2, ...name("j"), 0, 3];
  const bodies = [4, 2, 0, 0x0b, 5, 0, 0x41, 0x80, 0x08, 0x0b, 2, 0, 0x0b, 3, 0, 0x00, 0x0b];
  return compile(Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...section(1, types), ...section(3, functions), ...section(5, memory), ...section(7, exported), ...section(10, bodies)]));
}
