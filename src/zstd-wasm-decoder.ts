/**
 * The Worker's zstd decoder: libzstd as WebAssembly instead of fzstd (pure JavaScript), for
 * the paths that show records of a zstd topic (JSON fetch, polls, streams, pushes) and the
 * produce path's validation. The .wasm file is imported as a module — wrangler bundles it as
 * a CompiledWasm module, and so do the vitest plugin and Miniflare's runner — because workerd
 * forbids compiling WebAssembly from bytes at run time. Imported first by src/index.ts, so it
 * is installed before any request; the pure core never imports it (the client keeps fzstd).
 */
import libzstd from "@foxglove/wasm-zstd/dist/wasm-zstd.wasm";
import { useZstdDecoder } from "./protocol/compression/zstd-decode.ts";
import { zstdWasmDecoder } from "./protocol/compression/zstd-wasm.ts";

useZstdDecoder(zstdWasmDecoder(libzstd));
