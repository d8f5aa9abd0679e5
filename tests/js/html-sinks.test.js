// No eval, no new Function, and no HTML parsed from untrusted text anywhere in the page, the widget,
// the JS wrapper and the bindings: a search of the sources (web/ without the build outputs web/wasm/,
// web/widget.js, web/worker.js and the page's bundles, which are made from these; bindings/). Code evaluation and
// document.write are never allowed. innerHTML / insertAdjacentHTML may only take a string or template
// literal whose every ${…} is esc(…) (web/app/util/html.js, the one escaper) or an expression on the
// allow-list below, each with the reason it cannot carry text from a model, a URL or a user.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import { PAGE_BUNDLES } from '../../web/build-page.mjs';
import { root } from './helpers.js';

const BUILT = new Set(['web/wasm', 'web/widget.js', 'web/worker.js', ...PAGE_BUNDLES.map((b) => relative(root, b.file))]);

function sources(dir) {
  const out = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (BUILT.has(rel)) continue;
    if (e.isDirectory()) out.push(...sources(rel));
    else if (/\.(m?js|html|cpp|h)$/.test(e.name)) out.push(rel);
  }
  return out;
}

// Interpolations that are not esc(…), by file: why each is not untrusted text.
const ALLOWED = {
  'web/app/panels/logits-panel.js': {
    'row.top.length': 'a count',
    "row.forced ? '<b>You forced this step.</b> ' : ''": 'a constant chosen by a boolean',
  },
  'web/app/panels/output-panel.js': { 'k + 1': 'a step number' },
  'web/app/views/head-importance.js': {
    'm.short': "a metric's constant short name (this file's METRICS table)",
    'this.#id': 'an element id the page makes from a counter',
    "sorted.slice(0, k).map(item).join('')": 'list items built by item(), which escapes every token and prints numbers with toFixed',
    "sorted.slice(-k).reverse().map(item).join('')": 'the same, for the least important heads',
  },
  'web/app/views/beam-view.js': {
    'beamLegendHTML()': 'constant legend markup (web/app/views/beam.js), labels through esc',
    svg: "beamTreeSVG() (web/app/views/beam.js): every token through esc, numbers, and the engine's status names",
    "snap.done ? list('n-best (best first)', snap.nbest, 'nbest') : list('In the beam now', snap.live, 'live') + list('Finished so far', snap.finished, 'finished')":
      'list() above it: constant titles and classes, hypothesis text through esc, scores formatted as numbers',
  },
  'web/app/panels/analyses.js': {
    "bars(logits, 'before', m)": 'bars() above it: tokens through esc, numbers, constant classes',
    "bars(weights, 'after', 1)": 'the same',
  },
};
// Whole right-hand sides that are not one literal, by file: why they are safe.
const ALLOWED_CALLS = {
  'web/app/panels/analyses.js': {
    'panel(': 'panel() builds the PCA plots: numbers with toFixed, every token through esc()',
    'TIMELINE.map(': 'option elements of the constant TIMELINE table: indices, and epochs through esc',
  },
  'web/app/panels/stepper.js': { 'PLAY;': 'a constant icon (this file)', 'PAUSE;': 'a constant icon (this file)' },
};

/** The string or template literal starting at s[i] (a quote), its interpolations, and where it ends. */
function literal(s, i) {
  const q = s[i];
  const parts = [];
  let j = i + 1;
  while (j < s.length && s[j] !== q) {
    if (s[j] === '\\') { j += 2; continue; }
    if (q === '`' && s[j] === '$' && s[j + 1] === '{') {
      let depth = 1;
      const start = j + 2;
      j = start;
      while (depth > 0 && j < s.length) {
        if (s[j] === '`') { j = literal(s, j).end; continue; }
        if (s[j] === '{') depth++;
        else if (s[j] === '}') depth--;
        j++;
      }
      parts.push(s.slice(start, j - 1).trim());
      continue;
    }
    j++;
  }
  return { parts, end: j + 1 };
}

const isEsc = (e) => /^esc\([^]*\)$/.test(e) && literalBalanced(e.slice(4, -1));
const literalBalanced = (e) => [...e].reduce((d, c) => (d < 0 ? d : d + (c === '(' ? 1 : c === ')' ? -1 : 0)), 0) === 0;

function sinks(file) {
  const s = readFileSync(join(root, file), 'utf8');
  const found = [];
  for (const m of s.matchAll(/\b(eval\s*\(|new\s+Function\b|document\.write(ln)?\s*\(|\.outerHTML\s*=|setTimeout\(\s*['"`]|setInterval\(\s*['"`])/g)) {
    found.push({ file, line: s.slice(0, m.index).split('\n').length, problem: `code evaluation or document.write: ${m[0]}` });
  }
  for (const m of s.matchAll(/\.innerHTML\s*=\s*|\.insertAdjacentHTML\(\s*'[a-z]+'\s*,\s*/g)) {
    const line = s.slice(0, m.index).split('\n').length;
    const at = m.index + m[0].length;
    if (!`'"\``.includes(s[at])) {
      const call = Object.keys(ALLOWED_CALLS[file] ?? {}).find((c) => s.startsWith(c, at));
      if (!call) found.push({ file, line, problem: `HTML from an expression: ${s.slice(at, at + 60)}` });
      continue;
    }
    const { parts, end } = literal(s, at);
    if (/^\s*\+/.test(s.slice(end))) found.push({ file, line, problem: 'HTML concatenated to a literal' });
    for (const p of parts) {
      if (!isEsc(p) && !(ALLOWED[file] && p in ALLOWED[file])) found.push({ file, line, problem: `unescaped \${${p}}` });
    }
  }
  return found;
}

it('the sources evaluate no code and parse no untrusted text as HTML', () => {
  const files = [...sources('web'), ...sources('bindings')];
  expect(files).toEqual(expect.arrayContaining(['web/widget/attn-scope.js', 'web/app/main.js', 'web/attnscope.js', 'web/index.html']));
  expect(files.filter((f) => f.startsWith('web/wasm/') || BUILT.has(f))).toEqual([]);
  expect(files.flatMap(sinks)).toEqual([]);
});

it('the search finds what it must refuse (it can fail)', () => {
  const probe = (code) => {
    const s = code;
    const found = [];
    for (const m of s.matchAll(/\.innerHTML\s*=\s*/g)) {
      const { parts } = literal(s, m.index + m[0].length);
      for (const p of parts) if (!isEsc(p)) found.push(p);
    }
    return found;
  };
  expect(probe('a.innerHTML = `<b>${info.name}</b>`;')).toEqual(['info.name']);
  expect(probe('a.innerHTML = `<b>${esc(info.name)}</b>`;')).toEqual([]);
  expect(probe('a.innerHTML = `<b>${esc(a) + b}</b>`;')).toEqual(['esc(a) + b']);
  expect(probe('a.innerHTML = `<i>${`x${y}`}</i>`;')).toEqual(['`x${y}`']);
});
