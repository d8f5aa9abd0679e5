// BLEU by source length in WASM (bleuByLength, model.bleuByLength) against the pure-Python
// binning (models/goldens/make_bleu_by_length_goldens.py -> tests/golden/bleu_by_length.json) and
// against the native CLI (attnscope-cli bleu-by-length --json) on the same translations.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { AttnscopeError, bleuByLength, loadModel } from '../../web/attnscope.js';
import { FROZEN_TOY, cli, dataPath, path, toyPairs } from './helpers.js';

const golden = JSON.parse(readFileSync(path('tests/golden/bleu_by_length.json'), 'utf8'));
const lines = (p) => readFileSync(dataPath(p), 'utf8').split('\n').filter((l, i, all) => i < all.length - 1 || l !== '');
const VAL = { en: 'multi30k/val.first40.en', de: 'multi30k/val.first40.de', hyp: 'multi30k/val.first40.hyp.de' };

/** Every number of `a` within `tol` of `b`'s, every other value equal (null stays null). */
function expectClose(a, b, tol, where = 'result') {
  if (typeof b === 'number') {
    expect(Number.isFinite(a), `${where}: ${a}`).toBe(true);
    expect(Math.abs(a - b), `${where}: ${a} vs ${b}`).toBeLessThanOrEqual(tol);
  } else if (Array.isArray(b)) {
    expect(a?.length, where).toBe(b.length);
    b.forEach((x, i) => expectClose(a[i], x, tol, `${where}[${i}]`));
  } else if (b !== null && typeof b === 'object') {
    expect(Object.keys(a ?? {}).sort(), where).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(b)) expectClose(a[k], b[k], tol, `${where}.${k}`);
  } else {
    expect(a, where).toBe(b);
  }
}

describe('BLEU by source length in WASM', () => {
  it('equals the Python binning over the sacreBLEU port (every golden case)', async () => {
    expect(golden.cases.length).toBeGreaterThanOrEqual(5);
    for (const c of golden.cases) {
      const [sources, translations, references] = c.data
        ? [lines(VAL.en), lines(VAL.hyp), lines(VAL.de)]
        : [c.sources, c.hypotheses, c.references];
      expectClose(await bleuByLength(sources, translations, references, { bins: c.edges }), c.result, 1e-9, c.name);
    }
  });

  it('translates with the model, as the native CLI does (multi30k-en-de, beam 5, α 1.4)', async () => {
    const model = await loadModel(path('models/multi30k-en-de.safetensors'));
    const sources = lines(VAL.en);
    const references = lines(VAL.de);
    const seen = [];
    const wasm = model.bleuByLength(sources.map((s, i) => [s, references[i]]),
      { strategy: 'beam', beamSize: 5, lengthPenalty: 'gnmt', alpha: 1.4, onProgress: (done, total) => seen.push([done, total]) });
    const native = JSON.parse(cli(['bleu-by-length', '--model', path('models/multi30k-en-de.safetensors'), '--input', dataPath(VAL.en),
      '--refs', dataPath(VAL.de), '--beam', '5', '--length-penalty', '1.4', '--json']));
    const { translations, ...figures } = wasm;
    expect(translations).toHaveLength(40);
    expectClose(figures, native, 1e-9);
    expect(figures.bins.map((b) => b.sentences)).toEqual([5, 19, 14, 0, 2]);
    expect(figures.bins[3].bleu).toBeNull();
    expect(seen[0]).toEqual([0, 40]);
    expect(seen.at(-1)).toEqual([40, 40]);
    // The translations it returns score to the same figures without the model.
    expectClose(await bleuByLength(sources, translations, references), figures, 1e-9, 'rescored');
    model.dispose();
  });

  it('scores the frozen toy model\'s exact translations at 100 where there are 4-grams', async () => {
    const model = await loadModel(FROZEN_TOY);
    const r = model.bleuByLength(toyPairs, { bins: [3, 4] });
    expect(r.translations).toEqual(toyPairs.map((p) => p[1]));
    expect(r.bins.map((b) => [b.minWords, b.maxWords, b.sentences])).toEqual([[1, 3, 12], [4, 4, 12], [5, null, 12]]);
    expect(r.bins[0].bleu).toBe(0);
    for (const b of r.bins.slice(1)) expect(b.bleu).toBeCloseTo(100, 9);
    expect(r.total.bleu).toBeCloseTo(100, 9);
    model.dispose();
  });

  it('bad input is an AttnscopeError with a clear message', async () => {
    const model = await loadModel(FROZEN_TOY);
    const pair = [['i eat apple', 'ich essen apfel']];
    const cases = [
      [() => model.bleuByLength(pair, { bins: [8, 4] }), /increase/],
      [() => model.bleuByLength(pair, { bins: [0] }), /positive/],
      [() => model.bleuByLength(pair, { bins: [] }), /at least one edge/],
      [() => model.bleuByLength(pair, { bins: [2.5] }), /integer/],
      [() => model.bleuByLength(pair, { bins: '8,12' }), /array/],
      [() => model.bleuByLength([]), /at least one sentence/],
      [() => model.bleuByLength([['', 'x']]), /no words/],
      [() => model.bleuByLength(['i eat apple']), /pair 1/],
      [() => model.bleuByLength(pair, { beamSize: 'x' }), /beamSize/],
      [() => model.bleuByLength(pair, { prefix: 'ich' }), /prefix/],
    ];
    for (const [run, message] of cases) {
      expect(run).toThrow(AttnscopeError);
      expect(run).toThrow(message);
    }
    await expect(bleuByLength(['a b'], ['x'], [])).rejects.toThrow(/references/);
    await expect(bleuByLength(['a b'], ['x'], ['y'], { bins: [3, 3] })).rejects.toThrow(AttnscopeError);
    model.dispose();
  });
});
