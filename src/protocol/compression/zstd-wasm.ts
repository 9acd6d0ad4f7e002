/**
 * libzstd's decoder as WebAssembly: @foxglove/wasm-zstd's build of libzstd (emscripten, -O3),
 * driven through its exports without emscripten's JavaScript glue (which compiles the module
 * from bytes at run time: workerd forbids that). The caller hands in the compiled module — the
 * Worker imports the .wasm file as a module (src/zstd-wasm-decoder.ts), a test compiles it in
 * Node — so this file stays pure and bundles nothing. Nothing the client or the package's
 * ./protocol entry imports reaches it (their build has no WebAssembly types).
 *
 * The module is emscripten's minified ABI, pinned by the exact package version: exports
 * c memory, d constructors, f malloc, g free, j `decompress(dst, dstCapacity, src, srcSize)`
 * (ZSTD_decompress, or -1 for any error); imports a.a `emscripten_resize_heap(bytes)` and
 * a.b `emscripten_memcpy_big(dst, src, length)`. The shape is checked on instantiation.
 *
 * Bounds: the output buffer is `capacity` bytes (the frames' sizes, walked and checked against
 * the decompression bound by zstd-decode.ts before this runs), and libzstd stops with an error
 * rather than write past it; the heap grows only to zstdWasmHeapBytesMax (WebAssembly memory
 * never shrinks: it is the isolate's for good). Any failure is a CompressionError; a trap
 * (which libzstd, fuzzed for this, should never hit) drops the instance and the next call
 * starts a fresh one, so a broken heap is never reused.
 */
import { zstdWasmHeapBytesMax } from "../../limits.ts";
import { CompressionError, corrupt } from "./compression-error.ts";
import type { ZstdFrameDecoder } from "./zstd-decode.ts";

interface LibzstdExports {
  memory: WebAssembly.Memory;
  malloc(bytes: number): number;
  free(pointer: number): void;
  decompress(dst: number, dstCapacity: number, src: number, srcSize: number): number;
}

const pageBytes = 64 * 1024;

/** The instance's exports by their emscripten names, or an error naming what does not fit. */
function exportsOf(instance: WebAssembly.Instance): LibzstdExports {
  const { c: memory, d: init, f: malloc, g: free, j: decompress } = instance.exports as Record<string, unknown>;
  const fn = (value: unknown, arity: number) => typeof value === "function" && value.length === arity;
  if (!(memory instanceof WebAssembly.Memory) || !fn(init, 0) || !fn(malloc, 1) || !fn(free, 1) || !fn(decompress, 4)) {
    throw new Error("the zstd WebAssembly module does not have @foxglove/wasm-zstd 1.0.1's exports");
  }
  (init as () => void)();
  return { memory, malloc, free, decompress } as LibzstdExports;
}

/** One instance: its heap and the two functions libzstd's C library calls out to. */
function instantiate(module: WebAssembly.Module, heapBytesMax: number): LibzstdExports {
  let memory: WebAssembly.Memory | undefined;
  const imports = {
    a: {
      // sbrk asks for a heap of `requested` bytes: grown by at least a quarter, never past the bound.
      a: (requested: number): number => {
        const current = memory!.buffer.byteLength;
        const wanted = requested >>> 0;
        if (wanted > heapBytesMax) return 0;
        const target = Math.min(heapBytesMax, Math.max(wanted, current + current / 4));
        try {
          memory!.grow(Math.ceil((target - current) / pageBytes));
          return 1;
        } catch {
          return 0;
        }
      },
      b: (dst: number, src: number, length: number): void => {
        new Uint8Array(memory!.buffer).copyWithin(dst, src, src + length);
      },
    },
  };
  const exports = exportsOf(new WebAssembly.Instance(module, imports));
  memory = exports.memory;
  return exports;
}

/** A decoder over `module` (instantiated on first use); `heapBytesMax` for tests of the bound. */
export function zstdWasmDecoder(module: WebAssembly.Module, heapBytesMax = zstdWasmHeapBytesMax): ZstdFrameDecoder {
  let libzstd: LibzstdExports | undefined;
  return {
    name: "libzstd (WebAssembly)",
    decode(src, capacity) {
      libzstd ??= instantiate(module, heapBytesMax);
      const { memory, malloc, free, decompress } = libzstd;
      let input = 0;
      let output = 0;
      try {
        input = malloc(Math.max(1, src.length));
        output = malloc(Math.max(1, capacity));
        if (input === 0 || output === 0) throw new CompressionError("too-large", `zstd: no room for ${src.length} + ${capacity} bytes in the decoder's ${heapBytesMax}-byte heap`);
        new Uint8Array(memory.buffer, input, src.length).set(src);
        const written = decompress(output, capacity, input, src.length);
        if (written < 0) corrupt("zstd", "libzstd refused the frame (corrupt, or larger than its frame headers say)");
        return new Uint8Array(memory.buffer, output, written).slice();
      } catch (error) {
        if (error instanceof CompressionError) throw error;
        libzstd = undefined; // a trap: this heap may be half-updated
        input = output = 0;
        corrupt("zstd", `the decoder stopped: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        if (input !== 0) free(input);
        if (output !== 0) free(output);
      }
    },
  };
}
