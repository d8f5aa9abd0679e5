// What a model file will cost the engine, read from its safetensors header before any of it is
// handed to WebAssembly, and the one rule that refuses a file too big for the engine's memory.
// The demo page (a file picked or dropped: web/app/panels/open-model.js), the engine's worker
// and the npm API (web/attnscope.js loadModel, which every URL, Response and byte source of the
// page, the widget and the package goes through) all ask here.
//
// A safetensors file is: 8 bytes, the header's length N (unsigned 64-bit little-endian); N bytes
// of JSON, {name: {dtype, shape, data_offsets: [begin, end]}, ..., "__metadata__": {...}}; the
// tensors' bytes, offsets relative to the end of the header.
//
// The numbers:
//   WASM_MEMORY_LIMIT  2 GiB: the most memory the engine's WebAssembly instance can grow to.
//                      CMakeLists.txt links it with -sALLOW_MEMORY_GROWTH=1 and no
//                      -sMAXIMUM_MEMORY, so Emscripten's default maximum applies (2 GiB; the glue's
//                      _emscripten_get_heap_max returns it). wasm32 could address 4 GiB at most.
//   engine bytes       the file's bytes (copied into the engine while it loads) + 4 bytes for
//                      every element of every tensor (weights are held as f32, whatever the
//                      file's dtype). A lower bound: the decoder's step weights, vocabularies and
//                      sessions come on top, so a file refused here could never have loaded.
//   header length      2 (the JSON "{}") to MAX_HEADER_BYTES, 100,000,000: the safetensors
//                      format's own cap on N, and the engine's (kMaxHeaderBytes,
//                      src/io/safetensors.h). Checked as soon as 8 bytes have arrived.
//   file size          exactly where the last tensor ends (8 + N + the largest data_offsets end):
//                      the format's tensors cover the data section with nothing after it, so a
//                      download is refused as soon as more bytes arrive, or are announced.
//
// A header that cannot be read here (truncated, not JSON, not a safetensors file) is left to the
// engine, which says exactly what is wrong with it (and loads nothing): the words for a file that
// is no model at all ("it starts with the bytes of a PNG image") are the engine's alone
// (src/io/file_kind.cpp).

export const WASM_MEMORY_LIMIT = 2 ** 31;
export const MAX_HEADER_BYTES = 100_000_000;
const gib = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;

/** 8 + N, where the header ends, from the file's first 8 bytes; 0 when they give no plausible length. */
export function headerEnd(bytes) {
  if (bytes.length < 8) return 0;
  const n = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  return n >= 2n && n <= BigInt(MAX_HEADER_BYTES) ? 8 + Number(n) : 0;
}

/**
 * What the header of a safetensors file, its first 8 + N bytes (or more), says: {parameters
 * (elements of every tensor), fileBytes (the whole file's size)}, or null when it cannot be read.
 * Refuses a file that cannot fit in the engine's memory, with the size and the limit (`what`
 * names the file).
 */
export function checkModelFile(bytes, what) {
  const end = headerEnd(bytes);
  let parameters = 0;
  let fileBytes = end;
  try {
    for (const [name, { shape, data_offsets: offsets }] of Object.entries(JSON.parse(new TextDecoder().decode(bytes.subarray(8, end))))) {
      if (name === '__metadata__') continue;
      parameters += shape.reduce((a, d) => a * d, 1);
      if (!Number.isSafeInteger(offsets[1]) || offsets[1] < 0) return null;
      fileBytes = Math.max(fileBytes, end + offsets[1]);
    }
  } catch {
    return null;
  }
  const need = fileBytes + 4 * parameters;
  if (need > WASM_MEMORY_LIMIT) {
    throw Error(`${what} is too big: the engine needs at least ${gib(need)} for it (the file, then ${parameters} parameters as f32), over its limit of ${gib(WASM_MEMORY_LIMIT)}`);
  }
  return { parameters, fileBytes };
}

/**
 * What a model file's first bytes say about how much of it to read, before the rest is read:
 * {need: n}, read its first n bytes and ask again; {fileBytes, parameters}, the header's promise
 * (the file ends at byte fileBytes, with its last tensor); or {notModel: true}, when the bytes are
 * no safetensors header or the header cannot be read: read no more, and let the engine say why
 * from the bytes read. Throws, as checkModelFile does, for a file too big for the engine.
 */
export function modelFileStart(bytes, what) {
  if (bytes.length < 8) return { need: 8 };
  const end = headerEnd(bytes);
  if (!end) return { notModel: true };
  if (bytes.length < end) return { need: end };
  return checkModelFile(bytes, what) ?? { notModel: true };
}

/**
 * Refuses a file of `length` bytes (`how`: "it is 5000 bytes", "the server announces ...") when
 * that is more than its header's fileBytes: the bytes after the last tensor belong to no tensor.
 */
export function checkFileLength(fileBytes, length, what, how) {
  if (length > fileBytes) {
    throw Error(`${what} goes on after its last tensor: its header says the file ends at byte ${fileBytes}, but ${how} (a safetensors file ends with its last tensor)`);
  }
}
