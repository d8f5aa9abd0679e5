// The fenced code blocks of README.md and docs/*.md, with the marker comment that precedes each
// (`<!-- example:js -->`, `<!-- embed:cdn -->`, `<!-- cli -->`, `<!-- fragment -->`, …): the tests
// that run what the documentation prints read the blocks here, and tests/js/docs-blocks.test.js
// checks that every block carries a marker some test consumes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');

/** README.md and every docs/*.md, as paths relative to the repository root. */
export function docFiles() {
  const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/**
 * Every fenced block of `file`: {file, line (1-based, of the opening fence), lang, code, marker}.
 * `marker` is the text of the `<!-- … -->` comment on the last non-blank line before the fence
 * (trimmed), or null.
 */
export function codeBlocks(file) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(\s*)(`{3,}|~{3,})\s*([\w+-]*)[^`]*$/);
    if (!open) continue;
    const fence = open[2];
    let j = i + 1;
    while (j < lines.length && !(lines[j].trim().startsWith(fence) && lines[j].trim().replace(/[`~]/g, '') === '')) j++;
    if (j >= lines.length) throw new Error(`${file}:${i + 1}: code block never closed`);
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const comment = k >= 0 ? lines[k].trim().match(/^<!--\s*([\s\S]*?)\s*-->$/) : null;
    blocks.push({ file, line: i + 1, lang: open[3], code: lines.slice(i + 1, j).join('\n') + '\n', marker: comment ? comment[1] : null });
    i = j;
  }
  return blocks;
}

/** Every block of README.md and docs/*.md. */
export function allCodeBlocks() {
  return docFiles().flatMap(codeBlocks);
}

/** The blocks whose marker is exactly `marker` (e.g. 'example:js', 'embed:cdn'), in every file. */
export function docBlocks(marker) {
  return allCodeBlocks().filter((b) => b.marker === marker);
}

/**
 * The one text shown after `marker`: wherever the documentation prints it (README.md and a docs
 * page may both), every copy must be the same. Throws when there is none or the copies differ.
 */
export function docBlock(marker) {
  const blocks = docBlocks(marker);
  if (blocks.length === 0) throw new Error(`no <!-- ${marker} --> code block in README.md or docs/*.md`);
  const texts = new Set(blocks.map((b) => b.code));
  if (texts.size > 1) {
    throw new Error(`the <!-- ${marker} --> blocks differ: ${blocks.map((b) => `${b.file}:${b.line}`).join(', ')}`);
  }
  return blocks[0].code;
}
