// What the benchmark's engines translate, not how fast: token agreement between two
// engines' greedy outputs, and corpus BLEU on a test set. BLEU is the project's one BLEU for
// Python, models/evaluation/bleu.py (sacreBLEU's defaults: 13a, mixed case, exp smoothing), as
// models/evaluation/evaluate.py computes it: this module hands it the hypotheses and references and reads
// the score back; it computes no BLEU itself.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

const root = resolve(import.meta.dirname, '../..');

/**
 * How far two engines' greedy outputs agree, sentence by sentence (`a[i].ids` vs `b[i].ids`):
 * identical sentences, and token agreement = tokens up to the first difference ÷ the longer
 * output, summed over sentences.
 */
export function agreement(a, b) {
  let same = 0;
  let prefix = 0;
  let total = 0;
  for (let i = 0; i < a.length; ++i) {
    const x = a[i].ids;
    const y = b[i].ids;
    let p = 0;
    while (p < x.length && p < y.length && x[p] === y[p]) ++p;
    if (p === x.length && p === y.length) ++same;
    prefix += p;
    total += Math.max(x.length, y.length);
  }
  return { sentences: a.length, identical: same, identicalRate: same / a.length, tokenAgreement: prefix / total };
}

/** Lines of a text file (gzip or not), split on '\n' only as sacreBLEU and models/evaluation/evaluate.py read them. */
export function readLines(file) {
  let bytes = readFileSync(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  const lines = bytes.toString('utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * The first `limit` pairs of Multi30k's test_2016_flickr (English → German), read beside the
 * checkout (`dataDir`: ../shared/data or $ATTNSCOPE_DATA), as the training scripts read it.
 */
export function readTestSet(dataDir, limit) {
  const files = { source: join(dataDir, 'multi30k/test_2016_flickr.en.gz'), reference: join(dataDir, 'multi30k/test_2016_flickr.de.gz') };
  for (const f of Object.values(files)) {
    if (!existsSync(f)) throw new Error(`${f} is missing (the Multi30k data beside the checkout, or ATTNSCOPE_DATA)`);
  }
  const sources = readLines(files.source);
  const references = readLines(files.reference);
  if (sources.length !== references.length) {
    throw new Error(`${files.reference} has ${references.length} lines, ${files.source} has ${sources.length}`);
  }
  const n = Math.min(limit, sources.length);
  return { files, total: sources.length, sources: sources.slice(0, n), references: references.slice(0, n) };
}

/**
 * Corpus BLEU of `hypotheses` against one reference each, by models/evaluation/bleu.py run with `python`
 * (standard library only): {score, formatted, signature, precisions, bp, hypLen, refLen}.
 */
export function corpusBleu(python, hypotheses, references) {
  if (hypotheses.length !== references.length) throw new Error(`${hypotheses.length} hypotheses for ${references.length} references`);
  const script = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(join(root, 'models', 'evaluation'))})`,
    'from bleu import corpus_bleu, format_bleu, signature',
    'd = json.load(sys.stdin)',
    'r = corpus_bleu(d["hypotheses"], [d["references"]])',
    'print(json.dumps({"score": r["score"], "formatted": format_bleu(r), "signature": signature(r),',
    '  "precisions": r["precisions"], "bp": r["bp"], "hypLen": r["hyp_len"], "refLen": r["ref_len"]}))',
  ].join('\n');
  const out = execFileSync(python, ['-c', script], { input: JSON.stringify({ hypotheses, references }), encoding: 'utf8', maxBuffer: 16 << 20 });
  const result = JSON.parse(out);
  if (!Number.isFinite(result.score)) throw new Error(`models/evaluation/bleu.py returned a score of ${result.score}`);
  return result;
}

/**
 * Greedy translations of a test set by each engine, scored: `engines` maps a name to
 * `async (sentence, i) => ids` (target ids, </s> included or not), `detokenize` turns ids into
 * text the same way for every engine. Returns {name: {...corpusBleu(), hypotheses}}.
 */
export async function bleuScores(engines, testSet, { python, detokenize, onEngine = () => {} }) {
  const out = {};
  for (const [name, translate] of Object.entries(engines)) {
    onEngine(name);
    const hypotheses = [];
    for (let i = 0; i < testSet.sources.length; ++i) hypotheses.push(detokenize(await translate(testSet.sources[i], i)));
    out[name] = { ...corpusBleu(python, hypotheses, testSet.references), hypotheses };
  }
  return out;
}
