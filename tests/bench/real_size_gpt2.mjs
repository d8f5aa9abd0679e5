// GPT-2 small at real size in the benchmark (`npm run bench -- --gpt2`, or `--gpt2-only`): 12
// layers, n_embd 768, 12 heads, n_positions 1024, GPT-2's vocabulary of 50,257 (~124 M parameters;
// random weights in Hugging Face's exact layout: models/goldens/make_hf_gpt2_checkpoints.py --size
// small, converted to an f16 attnscope file) in attnscope's WASM build and in onnxruntime-web
// (WASM, SIMD, 1 thread) over the two graphs tests/bench/export_onnx.py --hf traces from
// models/reference/hf_gpt2.py. Greedy, the same prompt ids for both, at two contexts: <bos> and a
// prompt of 127 (then 511) tokens (attnscope with prependBos: GPT-2's file reads a prompt without
// <bos>, as its tokenizer gives it; the graphs read <bos> first), and the tokens generated after it:
//
// - ms per generated token after the first, in this process, the engines taking turns: attnscope
//   capturing every attention map (every layer and head, every step) against ORT's fp32 graphs,
//   and attnscope with capture off beside them; the first token (the prompt read at once) apart;
// - load to first token and peak memory, each engine in a fresh process (real_size.mjs's cold
//   processes, at the 128-token context), with the page's size rule (web/model-header.js) on the file.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { checkModelFile, WASM_MEMORY_LIMIT } from '../../web/model-header.js';
import { median, timedOrt, timedTranslation } from './measure.mjs';
import { agreement, readLines } from './quality.mjs';
import { CAPTURE, OFF, coldProcesses, decoding, memoryProfile } from './real_size.mjs';

const root = resolve(import.meta.dirname, '../..');
const here = (p) => resolve(root, p);

/** Where run.sh puts the model and its graphs. */
export const GPT2_DEFAULTS = {
  model: 'build/hf-real/gpt2-size.safetensors',
  onnx: 'build/bench/onnx-gpt2-size',
  data: 'tests/data/multi30k/val.first40.en',
};

/** The contexts timed: <bos> + a prompt of context - 1 tokens. */
export const GPT2_CONTEXTS = [128, 512];

/**
 * A prompt of exactly `n` tokens of `model`'s tokenizer: the sentences of `lines` joined, cut at
 * the last word that keeps it within n, then " the" (one token of its own) until it has n.
 */
export function promptOfLength(model, lines, n) {
  const count = (text) => model.tokenize(text).ids.length;
  const words = lines.join(' ').split(/\s+/);
  let text = '';
  for (const word of words) {
    const next = text ? `${text} ${word}` : word;
    if (count(next) > n) break;
    text = next;
  }
  while (count(text) < n) text += ' the';
  if (count(text) !== n) throw new Error(`no prompt of exactly ${n} tokens from the data (got ${count(text)})`);
  return text;
}

/** Per generated token after the first, and the first token, of one pass: medians' inputs. */
function passFigures(runs) {
  const later = runs.reduce((a, r) => a + r.laterStepsMs, 0);
  const tokens = runs.reduce((a, r) => a + r.ids.length - 1, 0);
  return { laterPerTokenMs: later / tokens, firstTokenMs: runs.reduce((a, r) => a + r.firstTokenMs, 0) / runs.length, tokens };
}

function summarizePasses(passes) {
  const per = passes.map(passFigures);
  return { repeats: per, laterPerTokenMs: median(per.map((p) => p.laterPerTokenMs)), firstTokenMs: median(per.map((p) => p.firstTokenMs)),
    tokens: per[0].tokens };
}

/** The median over repeats of the per-repeat ratio a / b of laterPerTokenMs. */
export const pairedLaterRatio = (a, b) => median(a.repeats.map((x, i) => x.laterPerTokenMs / b.repeats[i].laterPerTokenMs));

/**
 * Runs the GPT-2 section: at each of GPT2_CONTEXTS, `generations` greedy continuations of
 * `newTokens` tokens per engine and repeat (<|endoftext|> held back: random weights may choose it
 * at once); `repeats` passes. Returns what results.json keeps under realSizeGpt2.
 */
export async function gpt2Bench({ model = GPT2_DEFAULTS.model, onnx = GPT2_DEFAULTS.onnx, data = GPT2_DEFAULTS.data,
  newTokens, generations, repeats, outDir, roofline = null }) {
  const modelPath = here(model);
  const onnxDir = here(onnx);
  for (const needed of [modelPath, join(onnxDir, 'check.json')]) {
    if (!existsSync(needed)) throw new Error(`GPT-2 at real size: ${relative(root, needed)} is missing (tests/bench/run.sh --gpt2-only makes it)`);
  }
  const fileBytes = statSync(modelPath).size;
  // The page's rule (web/model-header.js), which loadModel applies too: throws if it refuses the file.
  let fit;
  try {
    const header = checkModelFile(readFileSync(modelPath), modelPath);
    fit = { accepted: true, parameters: header.parameters, needBytes: header.needBytes, limitBytes: WASM_MEMORY_LIMIT };
  } catch (e) {
    return { model, fit: { accepted: false, message: e.message, limitBytes: WASM_MEMORY_LIMIT } };
  }
  const api = await import('../../web/attnscope.js');
  const exact = await api.loadModel(modelPath);
  const config = exact.config;
  const vocab = exact.info.tgtVocabSize;
  const { createOrt } = await import('./ort_engine.mjs');
  const ort = await createOrt(onnxDir, config);
  const lines = readLines(here(data));
  const prompts = GPT2_CONTEXTS.map((context) => promptOfLength(exact, lines, context - 1));
  const ids = prompts.map((p) => exact.tokenize(p).ids);
  console.log(`GPT-2 small at real size on ${cpus()[0]?.model ?? 'an unknown CPU'}: ${relative(root, modelPath)} (${(fileBytes / 1e6).toFixed(1)} MB), contexts ${GPT2_CONTEXTS.join(' and ')} ` +
    `(<bos> + a prompt from ${data}), ${newTokens} new tokens, ${generations} generations x ${repeats} repeats`);

  // <bos> first, as the ONNX graphs read it (the contexts above count it).
  const options = (capture) => ({ ...decoding(newTokens, capture), prependBos: true });
  const engines = (c) => ({
    capture: () => timedTranslation(exact, prompts[c], options(CAPTURE)),
    off: () => timedTranslation(exact, prompts[c], options(OFF)),
    ort: () => timedOrt(ort, ids[c], newTokens, { minLength: newTokens }),
  });
  const contexts = [];
  for (const [c, context] of GPT2_CONTEXTS.entries()) {
    const run = engines(c);
    const session = exact.generate(prompts[c], options(OFF));
    if (JSON.stringify(session.source.ids) !== JSON.stringify([config.special_tokens.bos, ...ids[c]])) throw new Error(`GPT-2, context ${context}: the session's prompt ids differ from ORT's`);
    session.dispose();
    // Untimed: the same tokens first (and warm-up).
    const first = {};
    for (const [k, f] of Object.entries(run)) first[k] = [await f()];
    const agree = { ortVsOurs: agreement(first.capture, first.ort), captureOffVsOn: agreement(first.capture, first.off) };
    const passes = Object.fromEntries(Object.keys(run).map((k) => [k, []]));
    for (let r = 0; r < repeats; ++r) {
      const pass = Object.fromEntries(Object.keys(run).map((k) => [k, []]));
      for (let g = 0; g < generations; ++g) {
        const order = Object.keys(run);
        for (let k = 0; k < (g + r) % order.length; ++k) order.push(order.shift());
        for (const k of order) pass[k].push(await run[k]());
      }
      for (const [k, v] of Object.entries(pass)) passes[k].push(v);
      const ms = (k) => passFigures(pass[k]).laterPerTokenMs.toFixed(2);
      console.log(`  context ${context}, repeat ${r + 1}/${repeats}: ms/token attnscope capturing ${ms('capture')} (off ${ms('off')}), ORT fp32 ${ms('ort')}`);
    }
    const summary = Object.fromEntries(Object.entries(passes).map(([k, v]) => [k, summarizePasses(v)]));
    contexts.push({ context, promptTokens: ids[c].length, agreement: agree, ...summary });
    console.log(`  context ${context}: ORT vs attnscope ${agree.ortVsOurs.identical}/1 identical (${(100 * agree.ortVsOurs.tokenAgreement).toFixed(1)}% of tokens)`);
  }

  // The f32 step stream at this size (tests/bench/roofline: a plain SIMD GEMV over weights of the
  // step's size; its cross-attention rows make it a little larger than GPT-2's step), for the profile.
  let stream = null;
  if (roofline && existsSync(roofline)) {
    const { default: createRoofline } = await import(roofline);
    const sampler = await createRoofline({ print: () => {} });
    sampler._setup(config.d_model, config.d_ff, vocab, config.n_layers);
    const samples = Array.from({ length: 5 }, () => sampler._decoder_step_gflops(2));
    stream = { gflopsMedian: median(samples), gflopsBest: Math.max(...samples), samples: samples.length };
  }
  exact.dispose();
  await ort.release();

  const sources = join(outDir, 'gpt2-size-sources.json');
  writeFileSync(sources, JSON.stringify({ model, config, sentences: prompts, ids }));
  const cold = coldProcesses(['attnscope', 'ort'], repeats, { model: modelPath, onnx: onnxDir, sources, maxLength: newTokens, memorySentences: prompts.length });
  const onnxInfo = (name) => JSON.parse(readFileSync(join(onnxDir, name), 'utf8'));
  return {
    model, data, newTokens, generations, repeats, fileBytes, parameters: fit.parameters, fit,
    config: { d: config.d_model, dff: config.d_ff, heads: config.n_heads, layers: config.n_layers, positions: config.max_positions, vocab },
    onnx: { dir: onnx, export: onnxInfo('export.json'), check: onnxInfo('check.json') },
    contexts, stream, cold,
    profile: memoryProfile(config, vocab, fileBytes, fit.parameters),
  };
}
