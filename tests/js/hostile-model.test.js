// Model files whose config claims more than their bytes hold, through the WebAssembly engine:
// the claim is checked against the tensors before anything of its size is allocated, tables
// computed from the config are bounded by the file's size, and the file's own strings reach
// the message escaped. (A 1.1 MB file once made the engine allocate ~1 GB of positions and end
// in a raw std::bad_alloc in the widget.) Built at run time from the tiny golden model.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AttnscopeError, heapInUse, init, loadModel } from '../../web/attnscope.js';
import { path } from './helpers.js';

const tiny = new Uint8Array(readFileSync(path('tests/golden/tiny_post_sin.safetensors')));

function parse(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.subarray(8 + n) };
}

function assemble(header, data) {
  const text = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

async function loadError(bytes) {
  try {
    (await loadModel(bytes)).dispose();
  } catch (e) {
    expect(e).toBeInstanceOf(AttnscopeError);
    return e.message;
  }
  throw new Error('the hostile file loaded');
}

let startHeap;
beforeAll(async () => {
  await init();
  startHeap = await heapInUse();
});
afterAll(async () => {
  // Every failed load gave back what it took.
  expect(Math.abs((await heapInUse()) - startHeap)).toBeLessThanOrEqual(4096);
});

it('a config of width 16384 and 8192 positions over the tiny model\'s tensors: refused by the first tensor, nothing allocated', async () => {
  const { header, data } = parse(tiny);
  const config = JSON.parse(header.__metadata__.config);
  Object.assign(config, { d_model: 16384, d_ff: 65536, max_positions: 8192 });
  header.__metadata__.config = JSON.stringify(config);
  const before = await heapInUse();
  expect(await loadError(assemble(header, data))).toBe("invalid model file: tensor 'src_embed.weight' has shape [18, 16], expected [18, 16384]");
  expect(Math.abs((await heapInUse()) - before)).toBeLessThanOrEqual(4096);
});

// The tiny model's tensors with 16 -> `d` and 32 -> 1, binary16 zeros, and `positions` positions.
function wideModel(d, positions) {
  const { header } = parse(tiny);
  const out = {};
  let offset = 0;
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const shape = info.shape.map((dim) => (dim === 16 ? d : dim === 32 ? 1 : dim));
    const bytes = 2 * shape.reduce((a, b) => a * b, 1);
    out[name] = { dtype: 'F16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const config = JSON.parse(header.__metadata__.config);
  Object.assign(config, { d_model: d, d_ff: 1, max_positions: positions });
  out.__metadata__ = { ...header.__metadata__, config: JSON.stringify(config) };
  return assemble(out, new Uint8Array(offset));
}

it('sinusoidal positions computed from the config are bounded by the file\'s size', async () => {
  const big = wideModel(512, 8192);
  expect(await loadError(big)).toBe('invalid model file: sinusoidal positions (8192 x 512) would take 33554432 bytes, '
    + `more than the 16777216 a ${big.length}-byte file may make the engine allocate`);
  const model = await loadModel(wideModel(512, 64));
  expect(model.info.config.d_model).toBe(512);
  model.dispose();
});

it('a dtype with a NUL and a tensor name with ESC reach the message escaped', async () => {
  const { header, data } = parse(tiny);
  header['output.bias'].dtype = 'F32\u0000';
  expect(await loadError(assemble(header, data))).toBe("invalid model file: tensor 'output.bias' has dtype F32\\u0000; attnscope reads F32, F16 and BF16");

  const h = parse(tiny).header;
  const end = h['output.bias'].data_offsets[1];
  h['\u001b[2Jstray\u0000'] = { dtype: 'F32', shape: [0], data_offsets: [end, end] };
  expect(await loadError(assemble(h, data))).toBe("invalid model file: unexpected tensor '\\u001B[2Jstray\\u0000' (not used by this config)");
});
