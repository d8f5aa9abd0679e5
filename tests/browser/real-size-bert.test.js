// A model of bert-base-uncased's real size (12 layers, d 768, 12 heads, 512 positions, 30,522 ids:
// random weights, written and converted by models/goldens/make_hf_real_size.py into build/hf-real/
// when missing there) on the longest input it takes: 512 pieces ([CLS] and [SEP] included) through
// the WebAssembly engine (model.fillMask, as the page's encoder-only view asks it). The prediction
// at the [MASK] and all 12 × 12 attention maps of 512 × 512 are checked against
// models/reference/hf_bert.py (Hugging Face's BertForMaskedLM read from its source) run on the
// Hugging Face snapshot itself (its weights rounded to binary16, as the file converted with --f16
// holds them); 513 pieces are refused in words. Prints the times.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { root } from './browser.js';

const FOLDER = join(root, 'build/hf-real');
const SNAPSHOT = join(FOLDER, 'bert-base-uncased-size');
const FILE = `${SNAPSHOT}.safetensors`;
const POSITIONS = 512;
const WORDS = 'the man is riding a red bike and she love paris'.split(' '); // one piece each in its vocabulary

/**
 * The reference on the snapshot, its weights rounded to binary16 as the --f16 file holds them: pieces, the 5 best ids and their probabilities at each [MASK],
 * and every attention map written to `maps` as float32 [layers, heads, T, T].
 */
const REFERENCE = `
import json, sys
import torch
sys.path[:0] = ["models/goldens", "models/reference"]
import make_hf_bert_goldens as goldens
from attnscope_ref import safetensors_io
torch.set_num_threads(1)
folder, text, maps = sys.argv[1:4]
with open(folder + "/config.json", encoding="utf-8") as f:
    config = json.load(f)
tokenizer = goldens.reference_tokenizer(folder)
state = {k: v.half().float() for k, v in safetensors_io.load(folder + "/model.safetensors")[0].items()}
model = goldens.reference.BertForMaskedLM(state, config)
pieces, ids, token_types = tokenizer(text)
scores, attentions = model(ids, token_types)
torch.stack(attentions).numpy().astype("<f4").tofile(maps)
masks = []
for position in [i for i, t in enumerate(ids) if t == tokenizer.vocab["[MASK]"]]:
    best = torch.softmax(scores[position], -1).topk(5)
    masks.append({"position": position, "ids": best.indices.tolist(), "probs": best.values.tolist()})
print(json.dumps({"pieces": pieces, "masks": masks}))
`;

/** The largest |a - b| over two arrays; NaN when either holds one (a comparison that then fails). */
function maxAbsDifference(a, b) {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (Number.isNaN(d)) return NaN;
    if (d > worst) worst = d;
  }
  return worst;
}

let model;
let loadSeconds;
beforeAll(async () => {
  if (!existsSync(FILE)) {
    execFileSync('/usr/bin/python3', [join(root, 'models/goldens/make_hf_real_size.py'), FOLDER, '--which', 'bert'], { stdio: 'inherit', timeout: 300_000 });
  }
  const start = performance.now();
  model = await loadModel(FILE);
  loadSeconds = (performance.now() - start) / 1000;
}, 360_000);
afterAll(() => model?.dispose());

/** A text of `n` pieces with [CLS] and [SEP]: [MASK], then the words over and over. */
function textOf(n) {
  const words = ['[MASK]'];
  while (model.tokenize(words.join(' ')).pieces.length < n - 2) words.push(WORDS[words.length % WORDS.length]);
  return words.join(' ');
}

it('reads 512 pieces: the prediction and the 12 × 12 maps of 512 × 512 are the reference\'s; 513 are refused (prints the times)', () => {
  const text = textOf(POSITIONS);
  const start = performance.now();
  const result = model.fillMask(text);
  const engineSeconds = (performance.now() - start) / 1000;
  expect(result.tokens).toHaveLength(POSITIONS);
  expect(model.info.sites.map((s) => s.name)).toEqual(['self']);
  const maps = result.attention.self;
  expect(maps.shape).toEqual([12, 12, POSITIONS, POSITIONS]);

  const scratch = mkdtempSync(join(tmpdir(), 'attnscope-bert-'));
  try {
    const mapsFile = join(scratch, 'attention.f32');
    const started = performance.now();
    const want = JSON.parse(execFileSync('/usr/bin/python3', ['-c', REFERENCE, SNAPSHOT, text, mapsFile], { cwd: root, maxBuffer: 1 << 26, timeout: 300_000 }).toString());
    const referenceSeconds = (performance.now() - started) / 1000;
    expect(result.tokens).toEqual(want.pieces);
    expect(result.masks.map((m) => m.position)).toEqual(want.masks.map((m) => m.position));
    for (const [i, m] of result.masks.entries()) {
      expect(m.topK.map((c) => c.id)).toEqual(want.masks[i].ids);
      expect(maxAbsDifference(m.topK.map((c) => c.prob), want.masks[i].probs)).toBeLessThan(1e-4);
    }
    const bytes = readFileSync(mapsFile);
    const reference = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    expect(maxAbsDifference(maps.data, reference)).toBeLessThan(1e-4);
    console.log(`bert-base-sized model: load ${loadSeconds.toFixed(1)} s; fillMask of ${POSITIONS} pieces ${engineSeconds.toFixed(1)} s `
      + `(WebAssembly, one thread; Hugging Face's reading in PyTorch ${referenceSeconds.toFixed(1)} s with the process start); `
      + `[MASK] -> ${result.masks[0].topK[0].token} (${result.masks[0].topK[0].prob.toFixed(3)})`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  expect(() => model.fillMask(`${text} a`)).toThrow(`the text has more than ${POSITIONS} pieces with [CLS] and [SEP]; this model reads at most ${POSITIONS}`);
}, 300_000);
