// The repetition rules (noRepeatNgram, repetitionPenalty) through the public JS API on the WASM
// build, against the native CLI (--no-repeat-ngram, --repetition-penalty) on the toy model; bad
// values are AttnscopeErrors. Exact rules: src/decoding/README.md, "Repetition".
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { AttnscopeError, loadModel } from '../../web/attnscope.js';
import { cli, cliTranslate, path, translate } from './helpers.js';

const TOY = path('models/toy-en-de.safetensors');
// minLength keeps the toy model talking past its usual 3-5 words, where it starts to repeat.
const SENTENCES = ['i eat apple', 'we drink beer', 'i can read newspaper'];

let toy;
beforeAll(async () => { toy = await loadModel(TOY); });
afterAll(() => toy?.dispose());

function repeatsAnNgram(ids, n) {
  const seen = new Set();
  for (let i = 0; i + n <= ids.length; i++) {
    const key = ids.slice(i, i + n).join(',');
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

function best(options, text) {
  const s = toy.translate(text, options);
  try {
    s.run();
    return s.nbest()[0];
  } finally {
    s.dispose();
  }
}

describe('noRepeatNgram and repetitionPenalty equal the native CLI', () => {
  it('greedy, each rule alone and both, with minLength', () => {
    const cases = [
      [{ noRepeatNgram: 1 }, ['--no-repeat-ngram', '1']],
      [{ noRepeatNgram: 2 }, ['--no-repeat-ngram', '2']],
      [{ repetitionPenalty: 3 }, ['--repetition-penalty', '3']],
      [{ noRepeatNgram: 2, repetitionPenalty: 1.5 }, ['--no-repeat-ngram', '2', '--repetition-penalty', '1.5']],
    ];
    let changed = 0;
    for (const [rules, flags] of cases) {
      const options = { minLength: 8, maxLength: 12, ...rules };
      const wasm = SENTENCES.map((s) => translate(toy, s, options));
      expect(wasm).toEqual(cliTranslate(TOY, SENTENCES, ['--min-length', '8', '--max-length', '12', ...flags]));
      const plain = SENTENCES.map((s) => translate(toy, s, { minLength: 8, maxLength: 12 }));
      changed += wasm.filter((t, i) => t !== plain[i]).length;
      if (rules.noRepeatNgram) {
        for (const s of SENTENCES) expect(repeatsAnNgram(best(options, s).ids, rules.noRepeatNgram)).toBe(false);
      }
    }
    expect(changed).toBeGreaterThan(3);  // the rules do change these translations
  });

  it('beam search n-best with its scores, and sampling by seed', () => {
    const text = 'we want to drink beer';
    // The CLI's beam search ranks with GNMT (alpha 0.6) unless told otherwise: ask both for it.
    const s = toy.translate(text, { strategy: 'beam', beamSize: 3, nbest: 2, lengthPenalty: 'gnmt', alpha: 0.6, minLength: 7,
      noRepeatNgram: 2, repetitionPenalty: 1.3 });
    s.run();
    const native = cli(['translate', '--model', TOY, '--beam', '3', '--nbest', '2', '--length-penalty', '0.6', '--min-length', '7',
      '--no-repeat-ngram', '2', '--repetition-penalty', '1.3', text]).trim().split('\n').map((l) => l.split('\t'));
    expect(s.nbest().map((h) => [h.normalizedScore.toFixed(4), h.text])).toEqual(native.map(([, score, t]) => [score, t]));
    s.dispose();
    for (const seed of [1, 2, 3]) {
      const options = ['--sample', '--temperature', '1.2', '--top-k', '8', '--seed', String(seed), '--min-length', '6',
        '--no-repeat-ngram', '1', '--repetition-penalty', '2'];
      expect(translate(toy, text, { strategy: 'sample', temperature: 1.2, topK: 8, seed, minLength: 6, noRepeatNgram: 1, repetitionPenalty: 2 }))
        .toBe(cliTranslate(TOY, [text], options)[0]);
    }
  });

  it('reports the model\'s own logits while the score uses the penalised distribution', () => {
    const text = 'i eat apple';
    const penalised = best({ minLength: 8, maxLength: 10, repetitionPenalty: 3 }, text);
    const forced = toy.translate(text, { prefix: penalised.ids, maxLength: 10 });
    const again = toy.translate(text, { minLength: 8, maxLength: 10, repetitionPenalty: 3 });
    try {
      forced.run();
      again.run();
      for (let t = 0; t < penalised.ids.length; t++) {
        expect(Array.from(again.logits(t))).toEqual(Array.from(forced.logits(t)));
      }
      expect(Math.abs(forced.nbest()[0].score - penalised.score)).toBeGreaterThan(1e-4);
    } finally {
      forced.dispose();
      again.dispose();
    }
  });
});

describe('bad values are AttnscopeErrors', () => {
  const cases = [
    [{ noRepeatNgram: -1 }, /no_repeat_ngram_size must be in \[0, 1000\] \(0 = off\), got -1/],
    [{ noRepeatNgram: 1.5 }, /decoding option 'noRepeatNgram' must be an integer, got 1.5/],
    [{ noRepeatNgram: '2' }, /decoding option 'noRepeatNgram' must be a number, got "2"/],
    [{ repetitionPenalty: 0 }, /repetition_penalty must be in \(0, 1000\] \(1 = off\), got 0/],
    [{ repetitionPenalty: -2 }, /repetition_penalty must be in \(0, 1000\] \(1 = off\), got -2/],
    [{ repetitionPenalty: 1e6 }, /repetition_penalty must be in \(0, 1000\] \(1 = off\), got 1e\+06/],
    [{ repetitionPenalty: NaN }, /decoding option 'repetitionPenalty' must be a finite number, got NaN/],
    [{ repetitionPenalty: true }, /decoding option 'repetitionPenalty' must be a number, got true/],
  ];
  for (const [options, message] of cases) {
    it(`${JSON.stringify(options, (k, v) => (Number.isNaN(v) ? 'NaN' : v))}`, () => {
      let error;
      try {
        toy.translate('i eat apple', options).dispose();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AttnscopeError);
      expect(error.message).toMatch(message);
      expect(translate(toy, 'we drink beer')).toBe('wir trinken bier');  // the instance keeps working
    });
  }

  it('the CLI refuses them too', () => {
    const run = (flags) => cli(['translate', '--model', TOY, ...flags, 'i eat apple'], { allowFailure: true });
    expect(() => cli(['translate', '--model', TOY, '--repetition-penalty', '0', 'i eat apple'])).toThrow(/repetition_penalty must be in/);
    expect(() => cli(['translate', '--model', TOY, '--no-repeat-ngram', '-1', 'i eat apple'])).toThrow(/--no-repeat-ngram needs a non-negative integer/);
    expect(run(['--no-repeat-ngram', '0', '--repetition-penalty', '1'])).toBe(cliTranslate(TOY, ['i eat apple'])[0] + '\n');
  });
});
