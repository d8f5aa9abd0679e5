// The WebAssembly build through the public JS API (web/attnscope.js), in Node, against the native
// engine (attnscope-cli) on the same inputs.
import { readFileSync } from 'node:fs';
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { AttnscopeError, heapInUse, init, loadModel } from '../../web/attnscope.js';
import { FROZEN_TOY, cli, cliTranslate, dataPath, path, toyPairs, translate } from './helpers.js';

const TOY = FROZEN_TOY;
const MULTI30K = path('models/multi30k-en-de.safetensors');
const BPE_GOLDEN = path('tests/golden/deep_pre_sin_bpe.safetensors');

/** `bytes` as a stream of chunks, each `size(offset)` bytes long (the last one shorter). */
function streamOf(bytes, size) {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) { controller.close(); return; }
      const n = Math.min(size(at), bytes.length - at);
      controller.enqueue(new Uint8Array(bytes.subarray(at, at + n)));
      at += n;
    },
  });
}

let toy;
beforeAll(async () => { toy = await loadModel(TOY); });
afterAll(() => toy?.dispose());

describe('loading', () => {
  it('loads the toy model and describes it', () => {
    expect(toy.info.name).toBe('toy-en-de');
    expect(toy.config).toMatchObject({ d_model: 64, n_heads: 1, n_encoder_layers: 1, n_decoder_layers: 1 });
    expect(toy.vocab('target')).toContain('konnen');
    expect(toy.tokenize('I can eat pizza!')).toEqual({
      pieces: ['i', 'can', 'eat', 'pizza', '!'], ids: expect.any(Array), unknown: ['pizza', '!'],
    });
  });

  it('loads from bytes as well as from a path', async () => {
    const m = await loadModel(readFileSync(TOY).buffer.slice(0));
    expect(translate(m, 'we drink beer')).toBe('wir trinken bier');
    m.dispose();
  });

  it('loads from a streamed Response: chunks placed right whatever its content-length says', async () => {
    const file = readFileSync(MULTI30K);
    const stepLogits = (m) => {
      const s = m.translate('A man in a blue shirt is riding a bike.', { alternatives: 5 });
      s.step();
      const logits = Array.from(s.logits(0));
      s.dispose();
      return logits;
    };
    const direct = await loadModel(new Uint8Array(file));
    const want = stepLogits(direct);
    expect(want.length).toBe(direct.info.tgtVocabSize);
    direct.dispose();
    // Uneven chunks; an exact content-length, none, one too small (a compressed transfer's). One
    // too large announces trailing data, and is refused (model-download.test.js).
    for (const length of [file.length, null, 1000]) {
      const body = streamOf(file, (at) => 65_537 + (at % 7) * 1000);
      const headers = length === null ? {} : { 'content-length': String(length) };
      const progress = [];
      const m = await loadModel(new Response(body, { headers }), { onProgress: (p) => progress.push(p.loaded) });
      expect(progress.at(-1), `content-length ${length}`).toBe(file.length);
      expect(progress.length).toBeGreaterThanOrEqual(Math.ceil(file.length / 71_537)); // a report per chunk (at most 71,537 bytes each)
      expect(stepLogits(m), `content-length ${length}`).toEqual(want);
      m.dispose();
    }
  });

  it('streams a download into the engine as it arrives, and frees all of it by the end of the load', async () => {
    const file = readFileSync(MULTI30K);
    const runtime = await init();
    const before = runtime.heapInUse();
    const held = []; // the engine's heap in use, less before, at each progress report
    const m = await loadModel(new Response(streamOf(file, () => 65_536), { headers: { 'content-length': String(file.length) } }), {
      onProgress: ({ loaded }) => held.push([loaded, runtime.heapInUse() - before]),
    });
    // Half way through, the bytes that have arrived are in the engine (staged in the file's dtype,
    // each tensor once), not waiting in JavaScript for the end of the download.
    const [loaded, inEngine] = held[Math.floor(held.length / 2)];
    expect(loaded).toBeGreaterThan(file.length / 4);
    expect(inEngine).toBeGreaterThanOrEqual(loaded - 65_536 - 200_000); // (less the header and a chunk)
    expect(inEngine).toBeLessThan(loaded + 2 ** 20);
    // After the load, what is held is the model, as much as the same file loaded from bytes in
    // hand holds: the staged bytes were freed as the load read them.
    const streamed = runtime.heapInUse() - before;
    m.dispose();
    expect(runtime.heapInUse()).toBe(before);
    const inHand = await loadModel(file);
    expect(Math.abs(streamed - (runtime.heapInUse() - before))).toBeLessThan(65_536);
    inHand.dispose();
    expect(runtime.heapInUse()).toBe(before);
  });
});

describe('translations equal the native engine', () => {
  it('toy model: all 36 sentences of the grammar, greedy', () => {
    const sources = toyPairs.map(([en]) => en);
    const native = cliTranslate(TOY, sources);
    const wasm = sources.map((s) => translate(toy, s));
    expect(wasm).toEqual(native);
    expect(wasm).toEqual(toyPairs.map(([, de]) => de));
  });

  // The tests above read the frozen copy (tests/models/); the model the package ships is whatever
  // training last wrote to models/. Any toy that learned its grammar passes this.
  it('the shipped toy model (models/) translates all 36 sentences of its grammar', async () => {
    const shipped = await loadModel(path('models/toy-en-de.safetensors'));
    expect(toyPairs.map(([en]) => translate(shipped, en))).toEqual(toyPairs.map(([, de]) => de));
    shipped.dispose();
  });

  // Greedy only: beam search compares scores that can tie to ~1e-5, where the native and the
  // WASM builds (different compilers, different float rounding) may legitimately differ.
  it('Multi30k en-de: 25 validation sentences, greedy', async () => {
    const m = await loadModel(MULTI30K);
    const sources = readFileSync(dataPath('multi30k/val.first40.en'), 'utf8')
      .split('\n').slice(0, 25);
    expect(sources.map((s) => translate(m, s, { maxLength: 60 }))).toEqual(cliTranslate(MULTI30K, sources, ['--max-length', '60']));
    m.dispose();
  });

  // The int8 option's sums are exact integers and its scales the same float operations in both
  // builds, so the translations must match too (src/ops/gemm_int8.h).
  it('Multi30k en-de with int8 weights: 25 validation sentences, greedy, as the CLI with --int8', async () => {
    const m = await loadModel(MULTI30K, { int8: true });
    expect(m.info.int8).toBe(true);
    const sources = readFileSync(dataPath('multi30k/val.first40.en'), 'utf8')
      .split('\n').slice(0, 25);
    expect(sources.map((s) => translate(m, s, { maxLength: 60 })))
      .toEqual(cliTranslate(MULTI30K, sources, ['--int8', '--max-length', '60']));
    m.dispose();
    await expect(loadModel(TOY, { int8: 'yes' })).rejects.toThrow(/int8 must be true or false, got "yes"/);
  });

  it('beam search n-best and sampling', async () => {
    const m = await loadModel(BPE_GOLDEN);
    const text = 'A man in an orange hat.';
    const s = m.translate(text, { strategy: 'beam', beamSize: 4, nbest: 3, lengthPenalty: 'gnmt', alpha: 0.6, maxLength: 10 });
    s.run();
    const native = cli(['translate', '--model', BPE_GOLDEN, '--beam', '4', '--nbest', '3', '--length-penalty', '0.6',
      '--max-length', '10', text]).trim().split('\n').map((l) => l.split('\t'));
    expect(s.nbest().map((h) => [h.normalizedScore.toFixed(4), h.text])).toEqual(native.map(([, score, t]) => [score, t]));
    s.dispose();
    for (const seed of [1, 2, 3]) {
      const options = ['--sample', '--temperature', '1.5', '--top-k', '20', '--top-p', '0.9', '--seed', String(seed), '--max-length', '12'];
      expect(translate(m, text, { strategy: 'sample', temperature: 1.5, topK: 20, topP: 0.9, seed, maxLength: 12 }))
        .toBe(cliTranslate(BPE_GOLDEN, [text], options)[0]);
    }
    m.dispose();
  });

  it('attention maps have the native engine\'s shapes and values', async () => {
    const m = await loadModel(BPE_GOLDEN);
    const text = 'Three people sit in a cave.';
    const native = JSON.parse(cli(['translate', '--model', BPE_GOLDEN, '--json', '--max-length', '6', text]));
    const s = m.translate(text, { maxLength: 6 });
    s.run();
    const enc = s.encoderAttention();
    const S = native.source_tokens.length;
    expect(enc.shape).toEqual([3, 8, S, S]);
    expect(Array.from(enc.data)).toEqual(native.encoder_self_attn.flat(3).map((x) => expect.closeTo(x, 5)));
    for (let t = 0; t < s.steps; t++) {
      const cross = s.crossAttention(t);
      expect(cross.shape).toEqual([2, 8, S]);
      expect(Array.from(cross.data)).toEqual(native.steps[t].expansions[0].cross_attn.flat(2).map((x) => expect.closeTo(x, 5)));
      const self = s.selfAttention(t, { layer: 1, head: 7 });
      expect(self.shape).toEqual([t + 1]);
      expect(Array.from(self.data)).toEqual(native.steps[t].expansions[0].self_attn[1][7].map((x) => expect.closeTo(x, 5)));
    }
    s.dispose();
    m.dispose();
  });
});

describe('step, back, force', () => {
  it('steps one token at a time and reports the logits and alternatives', () => {
    const s = toy.translate('i can eat apple');
    const first = s.step();
    expect(first.step).toBe(0);
    expect(first.expansions[0].top[0].token).toBe('ich');
    expect(s.hypotheses()[0].tokens).toEqual(['ich']);
    const logits = s.logits(0);
    expect(logits).toBeInstanceOf(Float32Array);
    expect(logits.length).toBe(toy.info.tgtVocabSize);
    expect(logits[toy.tokenId('ich')]).toBe(Math.max(...logits));
    s.dispose();
  });

  it('back() then step() repeats the step exactly', () => {
    const s = toy.translate('we want to read newspaper');
    s.step(); s.step();
    const before = s.crossAttention(1).data;
    const logits = s.logits(1);
    s.back();
    expect(s.steps).toBe(1);
    s.step();
    expect(s.crossAttention(1).data).toEqual(before);
    expect(s.logits(1)).toEqual(logits);
    s.run();
    expect(s.translation).toBe('wir mochten zeitung lesen');
    s.dispose();
  });

  it('force() changes the continuation and reports the forced log-probability', () => {
    const s = toy.translate('i can eat apple');
    s.step();
    const r = s.force('mochten');
    expect(r.forced).toBe(true);
    expect(r.forcedLogProb).toBeCloseTo(s.logits(1, { logProbs: true })[toy.tokenId('mochten')], 6);
    s.run();
    expect(s.translation.startsWith('ich mochten')).toBe(true);
    s.dispose();
  });

  it('exposes the beam tree', () => {
    const s = toy.translate('we drink beer', { strategy: 'beam', beamSize: 3, nbest: 2 });
    s.step();
    expect(s.hypotheses().every((h) => !h.finished)).toBe(true);
    expect(s.history(0).expansions[0].node).toBe(0);
    s.run();
    const tree = s.beamTree();
    expect(tree[0]).toMatchObject({ parent: -1, token: '<s>' });
    expect(new Set(tree.map((n) => n.status))).toContain('pruned');
    const best = s.nbest()[0];
    const spelled = [];
    for (let n = best.node; n > 0; n = tree[n].parent) spelled.unshift(tree[n].token);
    expect(spelled).toEqual(best.tokens);
    s.dispose();
  });
});

describe('bad input gives an Error with a clear message', () => {
  it('sentences', () => {
    expect(() => toy.translate('')).toThrow(/empty/);
    expect(() => toy.translate(' \t ')).toThrow(AttnscopeError);
    expect(() => toy.translate('i '.repeat(40))).toThrow(/more than 16 tokens but this model reads at most 16/);
    const s = toy.translate('i can eat zzyzx');  // unknown words are reported, not fatal
    expect(s.source.unknown).toEqual(['zzyzx']);
    s.dispose();
  });

  it('model files', async () => {
    const good = readFileSync(TOY);
    await expect(loadModel(good.subarray(0, good.length - 100))).rejects.toThrow(/outside the .* data section/);
    await expect(loadModel(good.subarray(0, 5))).rejects.toThrow(/too short/);
    const badJson = Uint8Array.from(good);
    badJson[20] = 0x7b;  // '{' inside the header's JSON
    await expect(loadModel(badJson)).rejects.toThrow(/not valid JSON|invalid model file/);
    await expect(loadModel(path('nonexistent.safetensors'))).rejects.toThrow(/cannot read model file/);
    // The instance still works after all of that.
    expect(translate(toy, 'i drink water')).toBe('ich trinken wasser');
  });

  it('options and indices', () => {
    expect(() => toy.translate('i eat', { beamSize: 'x' })).toThrow(/beamSize/);
    expect(() => toy.translate('i eat', { tempreature: 1 })).toThrow(/unknown decoding option 'tempreature'/);
    const s = toy.translate('i eat apple');
    expect(() => s.back()).toThrow(/no step has been taken/);
    expect(() => s.logits(0)).toThrow(/step 0 is out of range/);
    s.step();
    expect(() => s.crossAttention(0, { layer: 1, head: 0 })).toThrow(/layer 1 is out of range \[0, 1\)/);
    expect(() => s.crossAttention(0, { layer: 0, head: 3 })).toThrow(/head 3 is out of range/);
    expect(() => s.crossAttention(0, { hypothesis: 2 })).toThrow(/hypothesis 2 is out of range/);
    expect(() => s.force(10_000)).toThrow(/target vocabulary has ids \[0, 17\)/);
    expect(() => s.force('apple')).toThrow(/not in the target vocabulary/);
    s.run();
    expect(() => s.step()).toThrow(/decoding has finished/);
    s.dispose();
    expect(() => s.step()).toThrow(/disposed/);
  });
});

describe('memory', () => {
  it('10,000 sessions created and disposed do not grow the heap', async () => {
    const warm = toy.translate('i eat apple');
    warm.run();
    warm.dispose();
    const before = await heapInUse();
    for (let i = 0; i < 10_000; i++) {
      const s = toy.translate(i % 2 ? 'we can read book' : 'i want to drink beer', { strategy: i % 3 ? 'greedy' : 'beam' });
      s.step();
      s.dispose();
    }
    const after = await heapInUse();
    console.log(`[memory] heap in use before ${before} B, after 10,000 sessions ${after} B, growth ${after - before} B`);
    expect(after - before).toBeLessThan(64 * 1024);
  });

  it('100 model load/dispose cycles do not grow the heap', async () => {
    const bytes = readFileSync(TOY);
    const before = await heapInUse();
    for (let i = 0; i < 100; i++) (await loadModel(bytes)).dispose();
    const after = await heapInUse();
    console.log(`[memory] heap in use before ${before} B, after 100 model loads ${after} B, growth ${after - before} B`);
    expect(after - before).toBeLessThan(64 * 1024);
  });
});

describe('build', () => {
  it('the .wasm really contains 128-bit SIMD instructions', async () => {
    const { execFileSync } = await import('node:child_process');
    const listing = execFileSync('wasm-objdump', ['-d', path('web/wasm/attnscope-wasm.wasm')], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const simd = listing.match(/\b(v128|f32x4|i32x4|i16x8|i8x16|f64x2|i64x2)\.\w+/g) ?? [];
    const arithmetic = simd.filter((op) => /^f32x4\.(add|mul|sub|div|min|max)/.test(op));
    console.log(`[build] SIMD instructions: ${simd.length}, f32x4 arithmetic: ${arithmetic.length}`);
    expect(arithmetic.length).toBeGreaterThan(0);
  });
});

describe('interventions', () => {
  it('uniform cross-attention and "no attention" change the toy translation; none restores it', () => {
    const uniform = toy.translate('i can eat apple', { interventions: { attention: [{ site: 'cross', pattern: 'uniform' }] } });
    uniform.run();
    expect(Array.from(uniform.crossAttention(0).data)).toEqual([0.2, 0.2, 0.2, 0.2, 0.2].map((x) => expect.closeTo(x, 7)));
    expect(uniform.translation).not.toBe('ich konnen apfel essen');
    uniform.dispose();
    expect(translate(toy, 'i can eat apple', { interventions: { skip: ['crossAttention'] } })).not.toBe('ich konnen apfel essen');
    expect(translate(toy, 'i can eat apple', { interventions: {} })).toBe('ich konnen apfel essen');
    expect(() => toy.translate('i eat', { interventions: { maskHeads: [{ site: 'cross', layer: 0, head: 1 }] } }))
      .toThrow(/cross attention head 1 is out of range \[0, 1\)/);
  });
});

describe('analyses', () => {
  it('scores, sweeps heads, rolls out and value-weights like the native engine', async () => {
    const good = toy.score('i can eat apple', 'ich konnen apfel essen');
    const bad = toy.score('i can eat apple', 'ich konnen brot essen');
    expect(good.tokens).toEqual(['ich', 'konnen', 'apfel', 'essen']);
    expect(good.tokenLogProbs).toHaveLength(5);
    expect(good.logProb).toBeGreaterThan(bad.logProb);
    const heads = JSON.parse(cli(['heads', '--model', TOY, '--input', path('tests/js/fixtures/toy.en'),
      '--refs', path('tests/js/fixtures/toy.de')]));
    const progress = [];
    const sweep = toy.headImportance([['i can eat apple', 'ich konnen apfel essen'], ['we drink beer', 'wir trinken bier'],
      ['we want to read book', 'wir mochten buch lesen']], { onProgress: (d, t) => progress.push([d, t]) });
    expect(progress.at(-1)).toEqual([3, 3]);
    expect(sweep.heads.map((h) => h.deltaLogLikelihood)).toEqual(heads.heads.map((h) => expect.closeTo(h.delta_log_likelihood, 5)));
    const s = toy.translate('i can eat apple', { capture: { vectors: true } });
    s.run();
    expect(s.rollout().shape).toEqual([5, 5]);
    expect(s.valueWeightedAttention('cross', 1).shape).toEqual([1, 1, 5]);
    expect(s.encoderPatterns()).toHaveLength(1);
    // softmax of the factor row is the captured cross-attention row
    const factor = Array.from(s.attentionLogits('cross', { step: 2 }));
    const exp = factor.map((x) => Math.exp(x - Math.max(...factor)));
    const sum = exp.reduce((a, b) => a + b, 0);
    expect(exp.map((x) => x / sum)).toEqual(Array.from(s.crossAttention(2).data).map((x) => expect.closeTo(x, 5)));
    s.dispose();
    expect(toy.embeddingPca('source').shape).toEqual([toy.info.srcVocabSize, 2]);
    expect(toy.positionalEncoding().shape).toEqual([16, 64]);
    const cos = toy.embeddingCosine([toy.tokenId('apple', 'source')], [toy.tokenId('apfel'), toy.tokenId('bier')]);
    expect(cos.shape).toEqual([1, 2]);
    expect(() => toy.embeddingCosine([999], [0])).toThrow(/outside the vocabulary/);
    const plain = toy.translate('i eat apple');
    plain.step();
    expect(() => plain.valueWeightedAttention('encoder')).toThrow(/capture.vectors = true/);
    plain.dispose();
  });
});
