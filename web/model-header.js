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
//   engine bytes       held tensors + the largest tensor + the header + activations +
//                      ENGINE_OVERHEAD, below. A download (or a file, a Blob) is staged in the
//                      engine as it arrives, each tensor in the file's bytes
//                      (src/io/staged_bytes.h); the load then keeps an F16 or BF16 weight in the buffer it
//                      arrived in and reads every other tensor into its held form, freeing its
//                      staged bytes. A tensor is held in at least its bytes in the file, so at any
//                      moment the engine holds at most every tensor as held plus the one being
//                      converted: its bytes in the file, at most the largest tensor's. (Bytes
//                      in hand, a Uint8Array, are read from where they are: no staging.)
//   held tensors       every element of every tensor at the bytes it is held in: 2 for an F16 or
//                      BF16 tensor with the load option binary16 (the default: as the file holds
//                      it), 4 for any other (F32; F16 or BF16 with binary16: false).
//   the header         its N bytes: the engine reads them (its vocabularies, merges and
//                      tokenizer tables are made from them).
//   activations        a generous bound on what a session adds, from the header's config
//                      (metadata "config", models/FORMAT.md; 0 without one), 4-byte floats:
//                        KV caches  BEAM (4) hypotheses x T positions x width x (2 rows, key and
//                                   value, per self-attention layer, n_layers + n_decoder_layers;
//                                   2 per cross-attention layer, n_decoder_layers when the model
//                                   has an encoder; 1, the encoder's output)
//                        scores     one layer's attention weights over the whole context, every
//                                   head's (as a capture keeps them): heads x T x T
//                        logits     2 x BEAM rows (logits, log-probabilities) x the vocabulary
//                      T = max_positions; width the widest of d_model, d_hidden, d_embed and
//                      2 x d_encoder (a bidirectional RNN's states); heads n_heads (1 without);
//                      the vocabulary the longer of src_vocab and tgt_vocab. Each is clamped to
//                      the engine's own bounds (src/model/config_fields.h: 64 layers a stack,
//                      width 16384, 8192 positions), and the width to the largest dimension of
//                      any tensor: a config that claims more than its tensors hold is the
//                      engine's to refuse, in its words. Not counted: a session's history of
//                      captured attention maps (it grows with the steps taken), and a beam wider
//                      than 4 at the full context.
//   ENGINE_OVERHEAD    64 MiB: the engine's code and static data, its stack, the vocabularies and
//                      tokenizer tables of a usual file, and the heap's growth steps.
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
const ENGINE_OVERHEAD = 64 * 2 ** 20;
const BEAM = 4;
const gib = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;

/** 8 + N, where the header ends, from the file's first 8 bytes; 0 when they give no plausible length. */
export function headerEnd(bytes) {
  if (bytes.length < 8) return 0;
  const n = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  return n >= 2n && n <= BigInt(MAX_HEADER_BYTES) ? 8 + Number(n) : 0;
}

/** A config field as a count: a positive integer no larger than `most`, else 0. */
function count(value, most) {
  return Number.isSafeInteger(value) && value > 0 ? Math.min(value, most) : 0;
}

/** The length of a metadata vocabulary (a JSON array as a string); 0 when it is none. */
function vocabularySize(text) {
  try {
    const list = JSON.parse(text);
    return Array.isArray(list) ? list.length : 0;
  } catch {
    return 0;
  }
}

/**
 * The activations' bound (the comment above) from the metadata's config; `widest` is the largest
 * dimension of any tensor.
 */
function activationBytes(metadata, widest) {
  let config;
  try {
    config = JSON.parse(metadata?.config);
  } catch {
    return 0;
  }
  if (!config || typeof config !== 'object') return 0;
  const layers = (name) => count(config[name], 64);
  const positions = count(config.max_positions, 8192);
  const width = Math.min(widest, Math.max(count(config.d_model, 16384), count(config.d_hidden, 16384),
    count(config.d_embed, 16384), 2 * count(config.d_encoder, 16384)));
  const heads = Math.max(1, Math.min(count(config.n_heads, 16384), width));
  const vocabulary = Math.max(vocabularySize(metadata.src_vocab), vocabularySize(metadata.tgt_vocab));
  const selfLayers = layers('n_layers') + layers('n_decoder_layers');
  const crossLayers = layers('n_encoder_layers') ? layers('n_decoder_layers') : 0;
  const kv = BEAM * positions * width * (2 * selfLayers + 2 * crossLayers + 1);
  const scores = heads * positions * positions;
  const logits = 2 * BEAM * vocabulary;
  return 4 * (kv + scores + logits);
}

/**
 * What the header of a safetensors file, its first 8 + N bytes (or more), says: {parameters
 * (elements of every tensor), fileBytes (the whole file's size), needBytes (what the engine needs
 * for it: the comment above)}, or null when it cannot be read. Refuses a file that cannot fit in
 * the engine's memory, with the size and the limit (`what` names the file). `binary16`: the load
 * option (web/api/model.js loadModel), which holds an F16 or BF16 file's tensors in 2 bytes an element.
 */
export function checkModelFile(bytes, what, { binary16 = true } = {}) {
  const end = headerEnd(bytes);
  let parameters = 0;
  let half = 0; // elements held in 16 bits
  let widest = 0;
  let largest = 0; // the largest tensor's bytes in the file
  let fileBytes = end;
  let metadata;
  try {
    for (const [name, tensor] of Object.entries(JSON.parse(new TextDecoder().decode(bytes.subarray(8, end))))) {
      if (name === '__metadata__') { metadata = tensor; continue; }
      const { dtype, shape, data_offsets: offsets } = tensor;
      const elements = shape.reduce((a, d) => a * d, 1);
      parameters += elements;
      if (binary16 && (dtype === 'F16' || dtype === 'BF16')) half += elements;
      widest = shape.reduce((a, d) => Math.max(a, d), widest);
      if (!Number.isSafeInteger(offsets[1]) || !Number.isSafeInteger(offsets[0]) || offsets[0] < 0 || offsets[0] > offsets[1]) return null;
      fileBytes = Math.max(fileBytes, end + offsets[1]);
      largest = Math.max(largest, offsets[1] - offsets[0]);
    }
  } catch {
    return null;
  }
  const tensorBytes = 2 * half + 4 * (parameters - half);
  const rest = largest + end + activationBytes(metadata, widest) + ENGINE_OVERHEAD;
  const needBytes = tensorBytes + rest;
  if (needBytes > WASM_MEMORY_LIMIT) {
    const held = !half ? 'as f32' : half === parameters ? 'in binary16' : `${half} of them in binary16, the others as f32`;
    throw Error(`${what} is too big: the engine would need ${gib(needBytes)} for it (its tensors ${gib(tensorBytes)}: ` +
      `${parameters} parameters, ${held}; then ${gib(rest)} for the largest tensor as it loads, the header, activations and the engine itself), ` +
      `over its limit of ${gib(WASM_MEMORY_LIMIT)}`);
  }
  return { parameters, fileBytes, needBytes };
}

/**
 * What a model file's first bytes say about how much of it to read, before the rest is read:
 * {need: n}, read its first n bytes and ask again; checkModelFile's {fileBytes, parameters,
 * needBytes}, the header's promise (the file ends at byte fileBytes, with its last tensor); or
 * {notModel: true}, when the bytes are no safetensors header or the header cannot be read: read
 * no more, and let the engine say why from the bytes read. Throws, as checkModelFile does, for a
 * file too big for the engine (`options`: checkModelFile's).
 */
export function modelFileStart(bytes, what, options) {
  if (bytes.length < 8) return { need: 8 };
  const end = headerEnd(bytes);
  if (!end) return { notModel: true };
  if (bytes.length < end) return { need: end };
  return checkModelFile(bytes, what, options) ?? { notModel: true };
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
