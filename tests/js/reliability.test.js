// Reliability through the public JS API, all in ONE WebAssembly instance: corrupted
// model files generated here from good ones, hostile sentences and API misuse. Every failure must
// be an AttnscopeError with a message that says what is wrong, and after all of them the same
// instance must still load the good model and translate correctly. Heap numbers are printed.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttnscopeError, heapInUse, init, loadModel } from '../../web/attnscope.js';
import { FROZEN_TOY, cliTranslate, path, toyPairs, translate } from './helpers.js';

const TOY = FROZEN_TOY;
const F16 = path('tests/golden/deep_post_learned_f16.safetensors');
const BPE = path('tests/golden/deep_pre_sin_bpe.safetensors');

// ------------------------------------------------------------------ safetensors editing helpers

function parse(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true));
  return { n, header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.subarray(8 + n) };
}

function assemble(headerText, data) {
  const text = new TextEncoder().encode(headerText);
  const out = new Uint8Array(8 + text.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(text, 8);
  out.set(data, 8 + text.length);
  return out;
}

function edited(bytes, edit) {
  const { header, data } = parse(bytes);
  edit(header);
  return assemble(JSON.stringify(header), data);
}

function withConfig(bytes, edit) {
  return edited(bytes, (h) => {
    const c = JSON.parse(h.__metadata__.config);
    edit(c);
    h.__metadata__.config = JSON.stringify(c);
  });
}

// The file with one weight of `tensor` (flat index `at`) replaced by `value` in its own dtype.
function withWeight(bytes, tensor, at, value) {
  const { n, header } = parse(bytes);
  const { dtype, data_offsets: [begin] } = header[tensor];
  const out = Uint8Array.from(bytes);
  const view = new DataView(out.buffer);
  if (dtype === 'F32') view.setFloat32(8 + n + begin + 4 * at, value, true);
  else view.setUint16(8 + n + begin + 2 * at, Number.isNaN(value) ? 0x7e00 : 0x7c00, true);  // f16 NaN / +Inf
  return out;
}

async function loadError(bytes) {
  try {
    const m = await loadModel(bytes);
    m.dispose();
  } catch (e) {
    expect(e).toBeInstanceOf(AttnscopeError);
    return e.message;
  }
  throw new Error('the corrupted file loaded');
}

let runtime;
let toy;
const good = new Uint8Array(readFileSync(TOY));
beforeAll(async () => {
  runtime = await init();
  toy = await loadModel(good);
});
afterAll(() => toy?.dispose());

// ------------------------------------------------------------------------ corrupted model files

describe('corrupted model files give a specific AttnscopeError; the instance keeps working', () => {
  const { n, header } = parse(good);
  const dataSize = good.length - 8 - n;
  const range = (name) => header[name].data_offsets;

  it('truncated at many offsets', async () => {
    const cuts = new Set([...Array(17).keys(), 8 + n - 1, 8 + n, 8 + n + 1, good.length - 1]);
    for (let c = 17; c < 8 + n; c += 331) cuts.add(c);
    for (let c = 8 + n; c < good.length; c += 4099) cuts.add(c);
    const before = await heapInUse();
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      const message = await loadError(good.subarray(0, cut));
      if (cut < 8) expect(message).toBe(`invalid model file: file is ${cut} bytes, too short for a safetensors header`);
      else if (cut < 8 + n) expect(message).toContain(`header length ${n} exceeds the ${cut - 8} bytes after it (file truncated?)`);
      else expect(message).toMatch(new RegExp(`data_offsets \\[\\d+, \\d+\\] lie outside the ${cut - 8 - n}-byte data section \\(file truncated\\?\\)$`));
    }
    const after = await heapInUse();
    console.log(`[memory] ${cuts.size} truncated files: heap in use before ${before} B, after ${after} B, growth ${after - before} B`);
    expect(after - before).toBeLessThan(64 * 1024);
  });

  const cases = [
    ['header length larger than the file', () => {
      const b = Uint8Array.from(good);
      new DataView(b.buffer).setBigUint64(0, BigInt(good.length), true);
      return b;
    }, `header length ${good.length} exceeds the ${good.length - 8} bytes after it`],
    ['header length 2^64 - 1', () => {
      const b = Uint8Array.from(good);
      new DataView(b.buffer).setBigUint64(0, 2n ** 64n - 1n, true);
      return b;
    }, 'this is not a safetensors model file (it does not start with a safetensors header): its first 8 bytes, read as a header length, give 18446744073709551615'],
    ['header that is not JSON', () => assemble('{"__metadata__": {', good.subarray(8 + n)), 'header is not valid JSON'],
    ['header that is a JSON array', () => assemble('[1, 2, 3]', good.subarray(8 + n)), 'header is not a JSON object'],
    ['overlapping tensors', () => edited(good, (h) => {
      const [b] = range('src_embed.weight');
      h['output.bias'].data_offsets = [b, b + (range('output.bias')[1] - range('output.bias')[0])];
    }), /tensors '.*' and '.*' overlap in the data section/],
    ['offsets past the end', () => edited(good, (h) => { h['output.bias'].data_offsets = [dataSize, dataSize + 68]; }),
      `tensor 'output.bias' data_offsets [${dataSize}, ${dataSize + 68}] lie outside the ${dataSize}-byte data section`],
    ['offsets reversed', () => edited(good, (h) => { h['output.bias'].data_offsets = [range('output.bias')[1], range('output.bias')[0]]; }),
      "tensor 'output.bias' data_offsets"],
    ['negative offsets', () => edited(good, (h) => { h['output.bias'].data_offsets = [-68, 0]; }),
      "tensor 'output.bias' data_offsets must be two non-negative integers"],
    ['offsets of another size', () => edited(good, (h) => { h['output.bias'].data_offsets = range('src_embed.weight'); }),
      `tensor 'output.bias' occupies ${range('src_embed.weight')[1] - range('src_embed.weight')[0]} bytes but its dtype and shape need ${4 * header['output.bias'].shape[0]}`],
    ['unsupported dtype', () => edited(good, (h) => { h['output.bias'].dtype = 'F64'; }),
      "tensor 'output.bias' has dtype F64; attnscope reads F32, F16 and BF16"],
    ['dtype that does not fit the bytes', () => edited(good, (h) => { h['output.bias'].dtype = 'F16'; }),
      `tensor 'output.bias' occupies ${4 * header['output.bias'].shape[0]} bytes but its dtype and shape need ${2 * header['output.bias'].shape[0]}`],
    ['shape transposed', () => edited(good, (h) => { h['src_embed.weight'].shape.reverse(); }),
      `tensor 'src_embed.weight' has shape [${[...header['src_embed.weight'].shape].reverse().join(', ')}], expected [${header['src_embed.weight'].shape.join(', ')}]`],
    ['negative dimension', () => edited(good, (h) => { h['output.bias'].shape = [-17]; }), "tensor 'output.bias' has an invalid dimension -17"],
    // (renamed, not deleted: its bytes stay covered, as the format requires)
    ['missing tensor', () => edited(good, (h) => {
      h['unused.v_proj.weight'] = h['decoder.layers.0.cross_attn.v_proj.weight'];
      delete h['decoder.layers.0.cross_attn.v_proj.weight'];
    }),
      "missing tensor 'decoder.layers.0.cross_attn.v_proj.weight'"],
    ['unexpected tensor', () => edited(good, (h) => { h['encoder.layers.1.extra'] = { dtype: 'F32', shape: [0], data_offsets: [0, 0] }; }),
      "unexpected tensor 'encoder.layers.1.extra' (not used by this config)"],
    ['NaN weight (f32)', () => withWeight(good, 'encoder.layers.0.ffn.fc2.weight', 7, NaN),
      "tensor 'encoder.layers.0.ffn.fc2.weight' contains NaN at flat index 7"],
    ['Inf weight (f32)', () => withWeight(good, 'output.bias', 16, -Infinity), "tensor 'output.bias' contains Inf at flat index 16"],
    ['no metadata', () => edited(good, (h) => { delete h.__metadata__; }), "metadata 'format' is missing"],
    ['another format', () => edited(good, (h) => { h.__metadata__.format = 'gguf'; }), "metadata 'format' is 'gguf', expected 'attnscope'"],
    ['config missing', () => edited(good, (h) => { delete h.__metadata__.config; }), "metadata 'config' is missing"],
    ['config not JSON', () => edited(good, (h) => { h.__metadata__.config = '{"d_model": 64,'; }), 'config metadata is not valid JSON'],
    ['config field missing', () => withConfig(good, (c) => { delete c.n_heads; }), "config field 'n_heads' is missing"],
    ['0 heads', () => withConfig(good, (c) => { c.n_heads = 0; }), "config field 'n_heads' = 0 is outside [1, "],
    ['dims not divisible by heads', () => withConfig(good, (c) => { c.n_heads = 3; }), 'config d_model = 64 is not divisible by n_heads = 3'],
    ['10^9 positions', () => withConfig(good, (c) => { c.max_positions = 1e9; }), "config field 'max_positions' = 1000000000 is outside [2, "],
    ['absurd width', () => withConfig(good, (c) => { c.d_model = 2 ** 40; }), "config field 'd_model' = 1099511627776 is outside [1, "],
    ['fractional layers', () => withConfig(good, (c) => { c.n_encoder_layers = 1.5; }), "config field 'n_encoder_layers' must be an integer, got 1.5"],
    ['unknown activation', () => withConfig(good, (c) => { c.activation = 'tanh'; }), 'config field \'activation\' must be one of "relu", "gelu", "swish", got "tanh"'],
    ['negative LayerNorm eps', () => withConfig(good, (c) => { c.layer_norm_eps = -1; }), "config field 'layer_norm_eps' must be > 0"],
    ['special token outside the vocabulary', () => withConfig(good, (c) => { c.special_tokens.eos = 99; }),
      "special token 'eos' id 99 is outside the source vocabulary of 18"],
    ['config with more layers than tensors', () => withConfig(good, (c) => { c.n_decoder_layers = 2; }), "missing tensor 'decoder.layers.1."],
    ['config with another width than the tensors', () => withConfig(good, (c) => { c.d_ff = 64; }),
      "tensor 'encoder.layers.0.ffn.fc1.weight' has shape [128, 64], expected [64, 64]"],
    ['vocabulary that is not a list of strings', () => edited(good, (h) => { h.__metadata__.src_vocab = '[1, 2]'; }),
      "metadata 'src_vocab' must contain only strings"],
    ['unknown tokenizer', () => edited(good, (h) => { h.__metadata__.tokenizer = '{"type": "unigram"}'; }),
      "tokenizer type 'unigram' is not supported"],
    ['malformed BPE merge', () => edited(good, (h) => { h.__metadata__.tokenizer = '{"type": "bpe", "merges": ["a b", "abc"]}'; }),
      "BPE merge 1 'abc' is not of the form 'left right'"],
  ];

  it.each(cases)('%s', async (_, make, expected) => {
    const message = await loadError(make());
    expect(message.startsWith('invalid model file: ')).toBe(true);
    if (expected instanceof RegExp) expect(message).toMatch(expected);
    else expect(message).toContain(expected);
  });

  it('NaN and Inf in f16 weights', async () => {
    const f16 = new Uint8Array(readFileSync(F16));
    expect(parse(f16).header['output.bias'].dtype).toBe('F16');
    expect(await loadError(withWeight(f16, 'output.bias', 3, NaN))).toContain("tensor 'output.bias' contains NaN at flat index 3");
    expect(await loadError(withWeight(f16, 'output.bias', 0, Infinity))).toContain("tensor 'output.bias' contains Inf at flat index 0");
  });

  it('not a model at all: empty, random bytes, text', async () => {
    expect(await loadError(new Uint8Array(0))).toContain('file is 0 bytes, too short');
    let x = 12345;
    const random = Uint8Array.from({ length: 4096 }, () => (x = (x * 1103515245 + 12345) >>> 0) >>> 24);
    expect(await loadError(random)).toMatch(/^invalid model file: this is not a safetensors model file \(it does not start with a safetensors header\): its first 8 bytes, read as a header length, give \d+/);
    expect(await loadError(new TextEncoder().encode('<!doctype html><title>404 Not Found</title>')))
      .toMatch(/^invalid model file: this is not a safetensors model file \(it starts with '<', as an HTML page does \(a web page saved instead of the model\?\)\)/);
  });

  it('a file that loads but overflows float32 (embedding_scale 3e38): each step is an error, the session stays usable', async () => {
    const m = await loadModel(withConfig(good, (c) => { c.embedding_scale = 3e38; }));
    for (const strategy of ['greedy', 'beam', 'sample']) {
      const s = m.translate('i can eat apple', { strategy });
      expect(() => s.step()).toThrow(AttnscopeError);
      expect(() => s.run()).toThrow("the model's computation overflowed at step 0: its logits are NaN or infinite");
      expect(s.steps).toBe(0);
      expect(s.translation).toBe('');
      s.dispose();
    }
    m.dispose();
  });

  it('after all of that, the same instance loads the good model and translates like the native engine', async () => {
    expect(await init()).toBe(runtime);
    const m = await loadModel(good);
    const sources = toyPairs.map(([en]) => en);
    const wasm = sources.map((s) => translate(m, s));
    expect(wasm).toEqual(toyPairs.map(([, de]) => de));
    expect(wasm).toEqual(cliTranslate(TOY, sources));
    m.dispose();
  });
});

// ----------------------------------------------------------------------------- hostile sentences

describe('hostile sentences', () => {
  let bpe;
  beforeAll(async () => { bpe = await loadModel(BPE); });
  afterAll(() => bpe?.dispose());

  it('empty and whitespace-only sentences are refused', () => {
    for (const m of [toy, bpe]) {
      for (const text of ['', ' ', ' \t\n\r\v\f ']) {
        expect(() => m.translate(text)).toThrow(AttnscopeError);
        expect(() => m.translate(text)).toThrow('the sentence is empty: type some words to translate');
      }
    }
  });

  it('a sentence longer than the model\'s positions is refused, never truncated or read out of bounds', () => {
    const max = toy.config.max_positions;  // 16, including the </s> the toy model appends
    const s = toy.translate(Array(max - 1).fill('i').join(' '));
    expect(s.source.ids).toHaveLength(max);
    s.run();
    expect(s.done).toBe(true);
    expect(s.steps).toBeLessThanOrEqual(max - 1);
    s.dispose();
    expect(() => toy.translate(Array(max).fill('i').join(' ')))
      .toThrow(`the sentence has more than ${max} tokens but this model reads at most ${max} (including </s>); shorten it`);
    expect(() => bpe.translate('a b '.repeat(2500)))
      .toThrow(`the sentence has more than ${bpe.config.max_positions} tokens but this model reads at most ${bpe.config.max_positions} (including </s>)`);
  });

  it('10,000 characters', () => {
    const words = 'i can eat apple '.repeat(625);
    expect(words).toHaveLength(10_000);
    expect(() => toy.translate(words)).toThrow(/the sentence has more than 16 tokens but this model reads at most 16/);
    expect(toy.tokenize(words).pieces).toHaveLength(2500);
    // One 10,000-character word is one unknown token for the word model and a BPE piece per
    // character (or merge) for the subword model: too long for it.
    const word = 'x'.repeat(10_000);
    const s = toy.translate(word);
    expect(s.source.unknown).toEqual([word]);
    s.run();
    expect(s.done).toBe(true);
    s.dispose();
    expect(() => bpe.translate(word)).toThrow(/the sentence has more than \d+ tokens but this model reads at most/);
  });

  it('only unknown words: reported, mapped to <unk>, translated anyway', () => {
    for (const [m, text] of [[toy, 'zzyzx qwrtp'], [bpe, 'ЖЖЖ ⊗⊗']]) {
      const s = m.translate(text);
      const unk = m.info.config.special_tokens.unk;
      expect(s.source.unknown.length).toBeGreaterThan(0);
      expect(s.source.ids.filter((id) => id === unk).length).toBe(s.source.unknown.length);
      s.run();
      expect(s.done).toBe(true);
      s.dispose();
    }
  });

  it('emoji, mixed scripts and control characters come back exactly as unknown words', () => {
    const words = ['🙂', '👩‍👩‍👧', '日本語', 'ελληνικά', 'عربى', 'a\u0000b', '\u0007', 'x\u007f', '\u200b'];
    const s = toy.translate(`i ${words.join(' ')} eat`);
    expect(s.source.pieces).toEqual(['i', ...words, 'eat', '</s>']);
    expect(s.source.unknown).toEqual(words);
    s.run();
    expect(s.done).toBe(true);
    s.dispose();
    const b = bpe.translate('Ein 🙂 Mann 日本語.');
    expect(b.source.pieces.join('')).toContain('🙂');
    b.run();
    expect(b.done).toBe(true);
    b.dispose();
  });

  it('lone UTF-16 surrogates become U+FFFD and do not swallow the next character', () => {
    for (const [text, pieces] of [
      ['i \uD800 eat', ['i', '\uFFFD', 'eat']],
      ['i\uD800 eat', ['i\uFFFD', 'eat']],
      ['i \uDC00eat', ['i', '\uFFFDeat']],
      ['\uDBFF\uDBFF i', ['\uFFFD\uFFFD', 'i']],
      ['i 🙂\uD83D', ['i', '🙂\uFFFD']],
    ]) {
      expect(toy.tokenize(text).pieces).toEqual(pieces);
      const s = toy.translate(text);
      expect(s.source.pieces).toEqual([...pieces, '</s>']);
      s.dispose();
    }
    expect(toy.score('i eat \uD800', 'ich essen').tokens).toEqual(['ich', 'essen']);
  });

  it('non-finite numbers in options are errors, not silently dropped', () => {
    expect(() => toy.translate('i eat', { temperature: NaN })).toThrow("decoding option 'temperature' must be a finite number, got NaN");
    expect(() => toy.translate('i eat', { maxLength: Infinity })).toThrow("decoding option 'maxLength' must be a finite number, got Infinity");
    expect(() => toy.translate('i eat', { maxLength: 1e300 })).toThrow("decoding option 'maxLength' must be an integer, got 1e+300");
    expect(() => toy.translate('i eat', { maxLengthB: -1e300, maxLengthA: 1 })).not.toThrow();
    expect(() => toy.translate('i eat', { seed: 2 ** 64 })).toThrow("decoding option 'seed' must be an integer in [0, 2^53)");
    expect(() => toy.translate('i eat', { seed: 10n })).toThrow(AttnscopeError);
  });
});

// ------------------------------------------------------------------------------------ API misuse

describe('API misuse', () => {
  it('a disposed session refuses every call; disposing twice is harmless', () => {
    const s = toy.translate('i eat apple');
    s.step();
    s.dispose();
    s.dispose();
    for (const call of [() => s.step(), () => s.run(), () => s.back(), () => s.force(4), () => s.logits(0),
      () => s.crossAttention(0), () => s.encoderAttention(), () => s.hypotheses(), () => s.translation,
      () => s.source, () => s.beamTree(), () => s.history(0), () => s.rollout()]) {
      expect(call).toThrow(AttnscopeError);
      expect(call).toThrow('this session has been disposed');
    }
  });

  it('a disposed model refuses new work; its running sessions go on', async () => {
    const m = await loadModel(good);
    const s = m.translate('we drink beer');
    m.dispose();
    expect(() => m.translate('i eat')).toThrow('this model has been disposed');
    expect(() => m.tokenize('i eat')).toThrow('this model has been disposed');
    s.run();
    expect(s.translation).toBe(toyPairs.find(([en]) => en === 'we drink beer')[1]);
    s.dispose();
  });

  it('layer, head, step and hypothesis out of range', () => {
    const s = toy.translate('i can eat apple', { capture: { vectors: true } });
    s.step();
    expect(() => s.crossAttention(1)).toThrow('step 1 is out of range: 1 steps taken');
    expect(() => s.crossAttention(-1)).toThrow('step -1 is out of range');
    expect(() => s.crossAttention(2 ** 40)).toThrow(`step ${2 ** 40} is out of range`);
    expect(() => s.selfAttention(0, { hypothesis: 1 })).toThrow('hypothesis 1 is out of range');
    expect(() => s.crossAttention(0, { layer: 1, head: 0 })).toThrow('cross attention: layer 1 is out of range [0, 1)');
    expect(() => s.encoderAttention({ layer: 0, head: -1 })).toThrow('encoder attention: head -1 is out of range [0, 1)');
    expect(() => s.encoderAttention({ layer: 0.5, head: 0 })).toThrow('layer 0.5 is out of range');
    expect(() => s.history(5)).toThrow('step 5 is out of range');
    expect(() => s.valueWeightedAttention('cross', 3)).toThrow('step 3 is out of range');
    expect(() => s.valueWeightedAttention('sideways', 0)).toThrow(AttnscopeError);
    expect(() => s.attentionLogits('encoder', { layer: 2 })).toThrow(AttnscopeError);
    expect(() => s.attentionLogits('encoder', { query: 99 })).toThrow(AttnscopeError);
    // Not integers: Embind would have read these as step 0 without a word.
    for (const bad of ['x', NaN, 0.5, undefined, null, '0']) {
      expect(() => s.logits(bad)).toThrow(`step must be an integer, got ${String(bad)}`);
    }
    expect(() => s.logits(0, { hypothesis: 0.5 })).toThrow('hypothesis must be an integer, got 0.5');
    s.dispose();
  });

  it('force() with an id outside the vocabulary, or not an id', () => {
    const s = toy.translate('i can eat apple');
    const V = toy.info.tgtVocabSize;
    expect(() => s.force(V)).toThrow(`cannot force token id ${V}: the target vocabulary has ids [0, ${V})`);
    expect(() => s.force(-1)).toThrow(`cannot force token id -1: the target vocabulary has ids [0, ${V})`);
    // 2**32 would wrap around to id 0 inside Embind and force <pad> without a word.
    expect(() => s.force(2 ** 32)).toThrow(`token id ${2 ** 32} is out of range`);
    expect(() => s.force(1.5)).toThrow('token must be an integer id or a token string, got 1.5');
    expect(() => s.force('apple')).toThrow("'apple' is not in the target vocabulary");
    expect(() => s.force(toy.tokenId('ich'), 1)).toThrow('cannot force hypothesis 1');
    expect(s.steps).toBe(0);  // nothing above changed the session
    expect(s.force('ich').forced).toBe(true);
    s.dispose();
  });

  it('back() at step 0, and back() past the start after steps', () => {
    const s = toy.translate('i can eat apple');
    expect(() => s.back()).toThrow('cannot go back: no step has been taken yet');
    s.run();
    const steps = s.steps;
    const translation = s.translation;
    for (let i = 0; i < steps; i++) s.back();
    expect(s.steps).toBe(0);
    expect(() => s.back()).toThrow('cannot go back: no step has been taken yet');
    s.run();
    expect(s.translation).toBe(translation);
    s.dispose();
  });

  it('two sessions interleaved on one model decode exactly as each alone', () => {
    const a = 'i want to drink beer';
    const b = 'we can read book';
    const alone = [translate(toy, a), translate(toy, b, { strategy: 'beam', beamSize: 3 })];
    expect(alone).toEqual(cliTranslate(TOY, [a]).concat(cliTranslate(TOY, [b], ['--beam', '3'])));
    const s1 = toy.translate(a);
    const s2 = toy.translate(b, { strategy: 'beam', beamSize: 3 });
    let wentBack = false;
    while (!s1.done || !s2.done) {
      if (!s1.done) s1.step();
      if (!s2.done) s2.step();
      if (!wentBack && s1.steps === 2) {
        s1.back();
        wentBack = true;
      }
    }
    expect(wentBack).toBe(true);
    expect([s1.translation, s2.translation]).toEqual(alone);
    s1.dispose();
    s2.dispose();
  });

  it('many models loaded at once, used and freed: the heap comes back', async () => {
    const bytes = [good, new Uint8Array(readFileSync(F16)), new Uint8Array(readFileSync(BPE))];
    const warm = await loadModel(bytes[2]);
    translate(warm, 'A man.', { maxLength: 3 });
    warm.dispose();
    const before = await heapInUse();
    const models = [];
    for (let i = 0; i < 30; i++) models.push(await loadModel(bytes[i % 3]));
    const sessions = models.map((m) => m.translate(m === models[0] ? 'i eat apple' : 'A man.', { maxLength: 3 }));
    sessions.forEach((s) => s.step());
    const during = await heapInUse();
    for (const m of models) m.dispose();
    sessions.forEach((s) => s.run());
    expect(sessions[0].translation).toBe(translate(toy, 'i eat apple', { maxLength: 3 }));
    sessions.forEach((s) => s.dispose());
    const after = await heapInUse();
    console.log(`[memory] 30 models loaded at once: heap in use before ${before} B, with them ${during} B, after freeing ${after} B, growth ${after - before} B`);
    expect(during - before).toBeGreaterThan(30 * 100_000);  // the models really were on the heap
    expect(after - before).toBeLessThan(64 * 1024);
  });
});
