// Hostile content for tests/browser/hostile.test.js: strings that would run script if any page or
// widget put them into markup (each calls window.__pwned, the test's trap), and a .safetensors
// model whose name, description and vocabularies carry them, made from the frozen toy model (same
// weights, so it still translates "i can eat apple" word for word, into hostile target tokens).
import { readFileSync } from 'node:fs';
import { FROZEN_TOY, safetensorsHeader } from './browser.js';

export const HOSTILE = {
  img: `<img src=x onerror="__pwned('img')">`,
  script: `"><script>__pwned('script')</script>`,
  svg: `<svg/onload=__pwned('svg')>`,
  jsUrl: `javascript:__pwned('js-url')`,
  iframe: `<iframe srcdoc="<script>parent.__pwned('iframe')</script>"></iframe>`,
  attr: `' onmouseover='__pwned("attr")' x='`,
  anchor: `<a href="javascript:__pwned('a')" id="pwned-link">click</a>`,
};
export const ALL = Object.values(HOSTILE);

/** The toy's target words that "i can eat apple" translates into, and what the hostile model calls them. */
export const TARGET_SWAPS = { ich: HOSTILE.img, konnen: HOSTILE.script, apfel: HOSTILE.svg, essen: HOSTILE.jsUrl };
/** Source words the sentence does not use (the page lists the vocabulary), renamed. */
export const SOURCE_SWAPS = { beer: HOSTILE.iframe, book: HOSTILE.attr, newspaper: HOSTILE.anchor };
export const HOSTILE_NAME = `${HOSTILE.img} toy`;
export const HOSTILE_DESCRIPTION = `${HOSTILE.script} ${HOSTILE.iframe}`;

/** The hostile model's bytes. */
export function hostileModel() {
  const bytes = readFileSync(FROZEN_TOY);
  const { header, n } = safetensorsHeader(bytes);
  const meta = header.__metadata__;
  const swap = (key, swaps) => {
    const vocab = JSON.parse(meta[key]).map((t) => swaps[t] ?? t);
    for (const w of Object.keys(swaps)) if (JSON.parse(meta[key]).indexOf(w) < 0) throw new Error(`the frozen toy has no ${key} word ${w}`);
    meta[key] = JSON.stringify(vocab);
  };
  swap('src_vocab', SOURCE_SWAPS);
  swap('tgt_vocab', TARGET_SWAPS);
  meta.name = HOSTILE_NAME;
  meta.description = HOSTILE_DESCRIPTION;
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (Buffer.byteLength(json) % 8)) % 8); // the data stays 8-byte aligned
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([head, Buffer.from(json, 'utf8'), bytes.subarray(8 + n)]);
}
