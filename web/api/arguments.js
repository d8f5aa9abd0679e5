// The API's checks of its arguments before they reach the engine, shared by every module of
// web/api/: text, integers, options as JSON, length bins, attribution options, site names. Each
// wrong argument is an AttnscopeError that says what was wrong.

import { AttnscopeError } from './runtime.js';

// Text for the engine. Lone UTF-16 surrogates become U+FFFD here: Emscripten's UTF-8 encoder
// would pair a lone high surrogate with whatever code unit follows it (eating a space or a letter).
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export function text(value) {
  return String(value).replace(loneSurrogate, '\uFFFD');
}

// An integer argument for the engine. Embind would silently turn 'x', NaN or 0.5 into 0 and wrap
// 2**40 around to 0, so the wrong step or token would be used without a word.
export function int(value, what) {
  if (!Number.isInteger(value)) throw new AttnscopeError(`${what} must be an integer, got ${String(value)}`);
  if (value < -0x80000000 || value > 0x7fffffff) throw new AttnscopeError(`${what} ${value} is out of range`);
  return value;
}

export function ints(values, what) {
  return Array.from(values, (v) => int(v, what));
}

// Options as JSON. JSON.stringify would turn NaN and Infinity into null, which the engine reads
// as "not given": say so instead.
export function json(options, what) {
  try {
    return JSON.stringify(options, (key, value) => {
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw new AttnscopeError(`${what} '${key}' must be a finite number, got ${value}`);
      }
      return value;
    });
  } catch (e) {
    throw e instanceof AttnscopeError ? e : new AttnscopeError(`${what} cannot be read: ${e.message}`);
  }
}

export function texts(values, what) {
  if (!Array.isArray(values)) throw new AttnscopeError(`${what} must be an array of strings`);
  return values.map(text);
}

// An optional true/false option for the engine: undefined or null leave the engine's default
// (Embind would read 'no' or 0 as a boolean without a word).
export function flag(value, what) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw new AttnscopeError(`${what} must be true or false, got ${String(value)}`);
  return value;
}

// Length-bin edges for the engine: undefined or null leave its default (8, 12, 16, 20).
export function lengthEdges(bins) {
  if (bins === undefined || bins === null) return null;
  if (!Array.isArray(bins)) throw new AttnscopeError(`bins must be an array of word counts, e.g. [8, 12, 16, 20], got ${String(bins)}`);
  return ints(bins, 'bins edge');
}

// Attribution options ({method, steps, baseline, contrast}) as the engine's arguments; `contrast`
// is a token of `side` (its text, or its id).
export function attributionArgs(model, side, { method = 'gradient-input', steps = 32, baseline = 'zero', contrast } = {}) {
  for (const [name, value] of [['method', method], ['baseline', baseline]])
    if (typeof value !== 'string') throw new AttnscopeError(`attribution ${name} must be a string, got ${String(value)}`);
  let token = '';
  if (typeof contrast === 'number') {
    token = model.vocab(side)[int(contrast, 'contrast token id')];
    if (token === undefined) throw new AttnscopeError(`contrast token id ${contrast} is outside the vocabulary`);
  } else if (contrast != null) {
    if (typeof contrast !== 'string' || contrast === '') throw new AttnscopeError(`contrast must be a token or a token id, got ${String(contrast)}`);
    token = contrast;
  }
  return [method, int(steps, 'steps'), baseline, token];
}

// The site called `name` in the model's table, or an AttnscopeError listing the table's names.
export function siteOf(model, name) {
  const sites = model.info.sites;
  const site = sites.find((s) => s.name === name);
  if (!site) {
    throw new AttnscopeError(`unknown attention site '${String(name)}' (this model has ${sites.map((s) => s.name).join(', ')})`);
  }
  return site;
}
