// Deeply nested JSON in every JSON the WebAssembly engine parses, all in ONE instance: a model
// file's header and metadata strings through loadModel, and the decoding options,
// interventions and training options as the engine receives them. Up to 256 levels a document
// is read and its value checked as usual; past it the engine refuses it before parsing, as an
// AttnscopeError naming the limit and the byte. 100,000 levels once killed the instance
// (RangeError, then "memory access out of bounds" for every widget sharing it) and leaked
// ~1.25 MB a load: here 100 failed loads leave the heap where it was, and the instance still
// translates. The hostile inputs are built here, at run time.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttnscopeError, createTrainer, heapInUse, init, loadModel } from '../../web/attnscope.js';
import { FROZEN_TOY, path, root, translate } from './helpers.js';

const LIMIT = 256; // kMaxJsonDepth, src/core/json.h
const DEPTHS = [10, 255, LIMIT, LIMIT + 1, 100_000];
const good = new Uint8Array(readFileSync(FROZEN_TOY));

const nested = (depth) => '['.repeat(depth) + ']'.repeat(depth);

/** The offset at which `text` first nests `depth` deep (brackets in strings do not count). */
function offsetOfDepth(text, depth) {
  let d = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') { if (++d === depth) return Buffer.byteLength(text.slice(0, i)); }
    else if (c === ']' || c === '}') d--;
  }
  return -1;
}

function parse(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.subarray(8 + n) };
}

function assemble(headerText, data) {
  const text = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

/** `text` with the JSON string "@" replaced by `value` (JSON.stringify would recurse on it). */
const splice = (text, value) => {
  expect(text).toContain('"@"');
  return text.replace('"@"', () => value);
};

async function loadError(bytes) {
  try {
    (await loadModel(bytes)).dispose();
  } catch (e) {
    expect(e).toBeInstanceOf(AttnscopeError);
    return e.message;
  }
  throw new Error('the hostile file loaded');
}

/** What a document `depth` deep must get: the depth refusal past the limit, else `usual`. */
function expectOutcome(message, document, depth, what, usual) {
  expect(message.length).toBeLessThan(400);
  expect(message).not.toMatch(/[\0-\x09\x0b-\x1f\x7f]/);
  expect((message.match(/\[/g) ?? []).length).toBeLessThanOrEqual(81);
  if (depth > LIMIT) {
    const verb = what.endsWith('s') ? 'nest' : 'nests';
    expect(message).toContain(`${what} ${verb} arrays and objects deeper than 256 levels (at byte ${offsetOfDepth(document, LIMIT + 1)})`);
  } else {
    expect(message).not.toContain('deeper than');
    expect(message).toContain(usual);
  }
}

let runtime;
let toy;
let startHeap;
beforeAll(async () => {
  runtime = await init();
  toy = await loadModel(good);
  startHeap = await heapInUse();
});
afterAll(() => toy?.dispose());

describe('a model file nested deep in its header or metadata', () => {
  for (const depth of DEPTHS) {
    it(`${depth} levels`, async () => {
      const { header, data } = parse(good);

      const shaped = structuredClone(header);
      shaped['output.bias'].shape = '@';
      const headerText = splice(JSON.stringify(shaped), nested(depth - 2));
      expectOutcome(await loadError(assemble(headerText, data)), headerText, depth, 'header',
        "tensor 'output.bias' has an invalid dimension [[[");

      for (const [field, usual] of [
        ['d_model', "config field 'd_model' must be an integer, got [[["],
        ['architecture', "config field 'architecture' must be a non-empty string, got [[["],
        ['activation', 'config field \'activation\' must be one of "relu", "gelu", "swish", got [[['],
      ]) {
        const config = JSON.parse(header.__metadata__.config);
        config[field] = '@';
        const document = splice(JSON.stringify(config), nested(depth - 1));
        const h = structuredClone(header);
        h.__metadata__.config = document;
        expectOutcome(await loadError(assemble(JSON.stringify(h), data)), document, depth, 'config metadata', usual);
      }

      const vocab = `["<pad>",${nested(depth - 1)}]`;
      const hv = structuredClone(header);
      hv.__metadata__.tgt_vocab = vocab;
      expectOutcome(await loadError(assemble(JSON.stringify(hv), data)), vocab, depth, "metadata 'tgt_vocab'",
        "metadata 'tgt_vocab' must contain only strings");

      const tokenizer = `{"type":"bpe","merges":${nested(depth - 1)}}`;
      const ht = structuredClone(header);
      ht.__metadata__.tokenizer = tokenizer;
      expectOutcome(await loadError(assemble(JSON.stringify(ht), data)), tokenizer, depth, 'tokenizer metadata',
        'BPE merges must be strings');
    });
  }
});

/** The engine's answer to options given as JSON text (what the JS API hands it). */
function engineError(call) {
  const result = call();
  expect(typeof result?.error).toBe('string');
  return result.error;
}

describe('decoding options, interventions and training options nested deep, as the engine reads them', () => {
  let handle;
  beforeAll(() => {
    handle = new runtime.ModelHandle();
    expect(handle.load(good, false, true)?.error).toBeUndefined();
  });
  afterAll(() => handle?.delete());

  for (const depth of DEPTHS) {
    it(`${depth} levels`, () => {
      const session = new runtime.SessionHandle();
      try {
        const decoding = `{"maxLength":${nested(depth - 1)}}`;
        expectOutcome(engineError(() => session.start(handle, 'i eat', decoding)), decoding, depth, 'decoding options',
          "decoding option 'maxLength' must be a number, got [[[");
        const interventions = `{"interventions":{"attention":[{"weights":${nested(depth - 4)}}]}}`;
        expectOutcome(engineError(() => session.start(handle, 'i eat', interventions)), interventions, depth, 'decoding options',
          "decoding option 'weights' must be a number, got [[[");
      } finally {
        session.delete();
      }
      const trainer = new runtime.TrainerHandle();
      try {
        const training = `{"lr":${nested(depth - 1)}}`;
        expectOutcome(engineError(() => trainer.create(['a'], ['b'], training)), training, depth, 'training options',
          "training option 'lr' must be a number, got [[[");
      } finally {
        trainer.delete();
      }
    });
  }

  it('through the public API too: options nested past the limit are an AttnscopeError', async () => {
    const deep = JSON.parse(nested(LIMIT + 1));
    expect(() => toy.translate('i eat', { interventions: { attention: [{ weights: deep }] } })).toThrow(AttnscopeError);
    expect(() => toy.translate('i eat', { interventions: { attention: [{ weights: deep }] } }))
      .toThrow(/^decoding options nest arrays and objects deeper than 256 levels \(at byte \d+\)$/);
    await expect(createTrainer('a,b', { dropout: deep })).rejects.toThrow(/^training options nest arrays and objects deeper than 256 levels/);
  });
});

describe('the instance survives: no leak, still translating', () => {
  it('a flat header of a million empty arrays is refused unparsed (its DOM would cost ~37 times its size)', async () => {
    const { header, data } = parse(good);
    const h = structuredClone(header);
    h['output.bias'].shape = '@';
    const text = splice(JSON.stringify(h), `[${Array(1_000_000).fill('[]').join(',')}]`);
    const before = await heapInUse();
    expect(await loadError(assemble(text, data))).toMatch(
      new RegExp(`^invalid model file: header holds too many values for its ${Buffer.byteLength(text)} bytes: parsing \\d+ values would take about \\d+ bytes, more than the \\d+ allowed \\(16 times the text, at least 16777216\\)$`));
    expect(Math.abs((await heapInUse()) - before)).toBeLessThanOrEqual(4096);
  });

  it('100 failed loads of a 100,000-deep file leave the heap within 4 KiB of where it was', async () => {
    const { header, data } = parse(good);
    const h = structuredClone(header);
    h['output.bias'].shape = '@';
    const hostile = assemble(splice(JSON.stringify(h), nested(100_000)), data);
    const before = await heapInUse();
    for (let i = 0; i < 100; i++) {
      await expect(loadModel(hostile)).rejects.toThrow(/^invalid model file: header nests arrays and objects deeper than 256 levels \(at byte \d+\)$/);
    }
    const after = await heapInUse();
    expect(Math.abs(after - before)).toBeLessThanOrEqual(4096);
    expect(Math.abs(after - startHeap)).toBeLessThanOrEqual(4096);
    expect(translate(toy, 'i can eat apple')).toBe('ich konnen apfel essen');
  });
});

// The one door: no engine source parses JSON but src/core/json.cpp (parse_json), so the limit
// holds for every JSON the engine reads, now and for what is added later.
it('every JSON parse in the engine goes through parse_json', () => {
  const sources = (dir) => readdirSync(path(dir), { recursive: true }).filter((f) => /\.(cpp|h)$/.test(f)).map((f) => join(dir, f));
  const offenders = [...sources('src'), ...sources('bindings')]
    .filter((f) => f !== join('src', 'core', 'json.cpp'))
    .filter((f) => /json::parse\s*\(|json::sax_parse|json::accept\s*\(|from_(cbor|msgpack|ubjson|bson)\s*\(/.test(readFileSync(join(root, f), 'utf8')));
  expect(offenders).toEqual([]);
});
