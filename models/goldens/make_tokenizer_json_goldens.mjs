#!/usr/bin/env node
// Writes tests/golden/tokenizer_json/: small tokenizer.json fixtures in Hugging Face's layout, one
// per kind of tokenizer in use (GPT-2, Llama 3, Qwen2, Llama 2 / TinyLlama, BERT, T5, RoBERTa),
// with vocabularies and merges learned here from a generated corpus; the test strings
// (inputs.json); and what @huggingface/tokenizers, Hugging Face's JavaScript port of the tokenizers
// crate, makes of each string with each fixture (<kind>.expected.json): ids, and the decoding of
// those ids with and without special tokens. tests/native/tokenizer_json_test.cpp asserts that the
// engine agrees on every string.
//
// Deterministic: run `node models/goldens/make_tokenizer_json_goldens.mjs` and commit the output.
//
// Where the JS port reads a file differently from the Rust crate (docs/tokenizer-json.md lists
// every case), the strings avoid what tells them apart, and the native test checks the crate's
// reading of those cases by hand:
//   - U+FEFF and U+0085: the JS ByteLevel pre-tokenizer runs GPT-2's pattern with JavaScript's \s
//     (which has U+FEFF and lacks U+0085), the crate with Oniguruma's (the White_Space property);
//   - U+017F (ſ) and U+212A (Kelvin sign): the JS port folds case in (?i:...) for ASCII only,
//     Oniguruma with Unicode's case folding ("'ſ" is a contraction for the crate);
//   - Σ (U+03A3): JS toLowerCase() applies the final-sigma rule, the crate lower-cases each
//     character alone (σ);
//   - CJK ideographs beyond the BMP: the JS BertNormalizer looks at UTF-16 code units and does not
//     space them apart;
//   - characters assigned after Unicode 14.0 (the engine's tables) or unassigned ones: Node's
//     Unicode is newer.
// The JS port's own gaps (Split behaviours other than Isolated and Removed, Metaspace without its
// `split`, BPE continuing_subword_prefix, Unigram byte_fallback, single_word added tokens, offsets)
// are not used by these fixtures; the native test covers them against the crate's rules.
import { Tokenizer } from '@huggingface/tokenizers';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const OUT = join(ROOT, 'tests', 'golden', 'tokenizer_json');
const STRINGS = 2100;
const REFERENCE_VERSION = JSON.parse(readFileSync(join(ROOT, 'node_modules/@huggingface/tokenizers/package.json'))).version;

// ---- deterministic randomness -------------------------------------------------------------------
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (list) => list[next.int(list.length)];
  return next;
}

// ---- text ---------------------------------------------------------------------------------------
const SUBJECTS = ['A man', 'Two women', 'A little girl', 'The dog', 'A group of children', 'An old woman', 'Three boys',
  'A young man', 'The cat', 'Several people', 'A chef', 'A woman in a blue dress', 'The team', 'A musician'];
const VERBS = ['is riding', 'are walking along', 'is playing with', 'is jumping over', 'are sitting on', 'is cooking',
  'is looking at', 'are running through', 'is painting', 'is holding', 'climbs', 'watches', 'carries', 'throws'];
const OBJECTS = ['a red bicycle', 'the beach', 'a small ball', 'the wooden fence', 'a park bench', 'dinner',
  'the crowded street', 'a snowy hill', 'a large mural', 'an umbrella', 'the river', 'a guitar', 'two boxes'];
const TAILS = ['.', ' in the rain.', ' while smiling.', ' near a fountain.', '!', ' at night.', ', happily.', '?'];
const SHOUTS = ["DON'T STOP", "I'M HERE", "YOU'RE LATE", "WE'VE WON", "THEY'LL SEE", "IT'S OVER", "SHE'D KNOW",
  "He's fine", "We're done", "I've seen it", "You'll like it", "I'd go", "Can't stop", "It's Bob's car", "WHAT'S UP?"];
const ACCENTED = ['Café', 'déjà vu', 'naïve', 'façade', 'über', 'Straße', 'niño', 'São Paulo', 'Ångström', 'crème brûlée',
  'Zürich', 'smørrebrød', 'Dvořák', 'Łódź', 'résumé', 'coöperate', 'jalapeño', 'Ærøskøbing', 'İstanbul', 'ıslak'];
const COMBINING = ['e\u0301', 'a\u0308', 'o\u0302\u0323', 'A\u030A', '\u212B', 'n\u0303', 'c\u0327', 'u\u0308\u0301',
  '\u1E9B\u0323', 'q\u0307\u0323', 'i\u0307', '\u0928\u093C', 'fi', '\uFB01', '\u2460', 'x\u00B2', '\u3300', '\uFF21'];
const CJK = ['我喜欢学习中文。', '日本語のテキスト、', '한국어 문장입니다', '北京欢迎你', '東京タワー', '漢字とかな',
  '中文，标点！', 'こんにちは世界', '你好', '가나다라'];
const OTHER_SCRIPTS = ['Привет, мир', 'Καλημέρα κόσμε', 'مرحبا بالعالم', 'שלום עולם', 'नमस्ते दुनिया', 'สวัสดีชาวโลก',
  'Γειά σου', 'добрый день', 'ελληνικά', 'ᏣᎳᎩ', 'Հայերեն', 'ქართული'];
const EMOJI = ['👍', '👍🏽', '👨‍👩‍👧‍👦', '🇫🇷', '❤️', '🧑‍💻', '😀', '🎉', '🐍', '🏳️‍🌈', '👩🏾‍🚀', '☕', '✨', '🙏🏻'];
const CODE = ['def foo(x):\n    return x**2 + 1  # square\n', 'for (int i = 0; i < n; ++i) { a[i] = b[i]; }',
  'const y = {"key": [1, 2, 3], "ok": true};', 'if x != None and y >= 10:\n\tprint(f"{x}-{y}")',
  '#include <stdio.h>\nint main() { return 0; }', 'SELECT * FROM users WHERE id = 42;', 'a && b || !c',
  'console.log(`value: ${v}`);', 'x = [i*i for i in range(10)]', '<div class="a">text</div>', 'std::vector<int> v{1,2};'];
const PUNCT = ['...', '!!', '??', '—', '–', '«quoted»', '(a)', '[b]', '{c}', '"double"', "'single'", '¿qué?', '¡hola!',
  'https://example.com/path?q=1&r=2', 'name@example.org', '#hashtag', '@user', '50%', '£5', '€10', '¥100', '~/dir'];
const SPACES = [' ', '  ', '   ', '\t', '\t\t', '\n', '\n\n', '\r\n', ' \n ', '\u00A0', '\u3000', '\u2003', ' \t '];

function avoid(s) {
  // The differences between the JS port and the crate listed above, kept out of the strings.
  return s.replace(/[\uFEFF\u0085\u017F\u212A\u03A3]/g, '');
}

function caption(r) {
  return `${r.pick(SUBJECTS)} ${r.pick(VERBS)} ${r.pick(OBJECTS)}${r.pick(TAILS)}`;
}

function digits(r) {
  const parts = [String(r.int(10 ** (1 + r.int(9)))), `${r.int(100)}.${r.int(100000)}`, `2024-0${1 + r.int(9)}-1${r.int(10)}`,
    `$${r.int(1000)},${String(r.int(1000)).padStart(3, '0')}`, '00042', '1234567890123', '٣٤٥', '१२३', '½', '3rd'];
  return Array.from({ length: 1 + r.int(4) }, () => r.pick(parts)).join(r.pick([' ', ', ', ' and ', '']));
}

function whitespace(r) {
  let s = r.pick(SPACES);
  for (let k = 0; k < 2 + r.int(4); ++k) s += r.pick(['word', 'tab', 'x', 'end', 'Hello']) + r.pick(SPACES);
  return s;
}

const POOLS = [SUBJECTS, VERBS, OBJECTS, SHOUTS, ACCENTED, COMBINING, CJK, OTHER_SCRIPTS, EMOJI, CODE, PUNCT, SPACES];

function mixed(r) {
  let s = '';
  for (let k = 0; k < 2 + r.int(6); ++k) s += r.pick(r.pick(POOLS)) + (r() < 0.6 ? ' ' : '');
  return s;
}

function long_word(r) {
  const unit = r.pick(['a', 'ab', 'xyz', 'super', 'ha', '9', '!', 'é']);
  return (r() < 0.5 ? 'pre ' : '') + unit.repeat(1 + r.int(r() < 0.2 ? 120 : 20)) + (r() < 0.5 ? ' post' : '');
}

// A test string of category k; `specials` are the fixture's added tokens, which category 9 puts
// inside words.
function test_string(r, k, specials) {
  switch (k % 16) {
    case 0: return caption(r);
    case 1: return `${r.pick(SHOUTS)}! ${r.pick(SHOUTS).toLowerCase()}, ${r.pick(SHOUTS)}`;
    case 2: return r.pick(CODE);
    case 3: return `${r.pick(ACCENTED)} ${r.pick(ACCENTED)}, ${caption(r)} ${r.pick(ACCENTED)}`;
    case 4: return `${r.pick(COMBINING)}${r.pick(['x', ' ', 'cafe', ''])}${r.pick(COMBINING)} ${r.pick(ACCENTED)}`;
    case 5: return `${r.pick(CJK)}${r.pick(['', ' ', 'abc', '123'])}${r.pick(CJK)}`;
    case 6: return `${r.pick(EMOJI)} ${caption(r)} ${r.pick(EMOJI)}${r.pick(EMOJI)}`;
    case 7: return digits(r);
    case 8: return whitespace(r);
    case 9: {
      const t = r.pick(specials);
      const word = r.pick(['hello', 'x', 'Über', 'end', '']);
      return r.pick([`${word}${t}${word}`, `${caption(r)} ${t}`, `${t}${caption(r)}`, `a ${t} b${t}c  ${t}  d`]);
    }
    case 10: return null;  // invalid UTF-8, made as bytes
    case 11: return mixed(r);
    case 12: return `${r.pick(OTHER_SCRIPTS)} ${r.pick(OTHER_SCRIPTS)}`;
    case 13: return `${r.pick(PUNCT)}${r.pick(PUNCT)} ${caption(r)}${r.pick(PUNCT)}`;
    case 14: return long_word(r);
    default: return r.pick(['', ' ', 'a', '\n', 'A', '.', '  ', '\t', 'é', '👍', '中']);
  }
}

const BAD_BYTES = [[0xff], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0x80, 0x80], [0xf5],
  [0xe0, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc3]];

function invalid_bytes(r) {
  const parts = [];
  for (let k = 0; k < 1 + r.int(4); ++k) {
    parts.push(...Buffer.from(r.pick(['word', ' ', 'café', 'x', '中', '']), 'utf8'));
    parts.push(...r.pick(BAD_BYTES));
  }
  parts.push(...Buffer.from(r.pick(['', ' end', 'z'])));
  return Uint8Array.from(parts);
}

// ---- BPE learning ---------------------------------------------------------------------------------
// Merges learned from word counts (each word a list of symbols): the most frequent pair first
// (ties: the smaller pair as text), every occurrence merged, `count` times.
function learn_merges(word_counts, count) {
  let words = [...word_counts].map(([w, n]) => ({ s: w, n }));
  const merges = [];
  for (let m = 0; m < count; ++m) {
    const pairs = new Map();
    for (const { s, n } of words)
      for (let i = 0; i + 1 < s.length; ++i) {
        const key = s[i] + '\u0000' + s[i + 1];
        pairs.set(key, (pairs.get(key) ?? 0) + n);
      }
    let best = null, best_n = 1;
    for (const [key, n] of pairs) if (n > best_n || (n === best_n && best !== null && key < best)) [best, best_n] = [key, n];
    if (best === null) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    words = words.map(({ s, n }) => {
      const out = [];
      for (let i = 0; i < s.length; ++i) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          out.push(a + b);
          ++i;
        } else out.push(s[i]);
      }
      return { s: out, n };
    });
  }
  return merges;
}

function count_words(words, to_symbols) {
  const counts = new Map();
  for (const w of words) {
    const key = JSON.stringify(to_symbols(w));
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return new Map([...counts].map(([k, n]) => [JSON.parse(k), n]));
}

// ---- byte level -----------------------------------------------------------------------------------
const BYTE_CHARS = (() => {
  const bs = [];
  for (let b = 33; b <= 126; ++b) bs.push(b);
  for (let b = 161; b <= 172; ++b) bs.push(b);
  for (let b = 174; b <= 255; ++b) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; ++b) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n++); }
  const map = new Array(256);
  bs.forEach((b, i) => { map[b] = String.fromCodePoint(cs[i]); });
  return { order: bs.map((b) => map[b]), of: map };
})();
const byte_symbols = (s) => [...Buffer.from(s, 'utf8')].map((b) => BYTE_CHARS.of[b]);

const GPT2_PATTERN = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const LLAMA3_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const QWEN2_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const js_regex = (onig) => new RegExp(onig.replace('(?i:', '(?:').replace(/\\s/g, '\\p{White_Space}'), 'gu');

function byte_level_vocab(corpus, pattern, merge_count, before = [], normalize = (s) => s) {
  const words = corpus.flatMap((s) => normalize(s).match(pattern) ?? []);
  const merges = learn_merges(count_words(words, byte_symbols), merge_count);
  const vocab = {};
  for (const t of [...before, ...BYTE_CHARS.order, ...merges.map(([a, b]) => a + b)]) if (!(t in vocab)) vocab[t] = Object.keys(vocab).length;
  return { vocab, merges };
}

const added = (id, content, special = true, extra = {}) => ({
  id, content, single_word: false, lstrip: false, rstrip: false, normalized: !special, special, ...extra,
});

function bpe_model(vocab, merges, extra = {}) {
  return { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
    fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges, ...extra };
}

function file(parts) {
  return { version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null, pre_tokenizer: null,
    model: null, post_processor: null, decoder: null, ...parts };
}

const byte_level = (extra = {}) => ({ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true, ...extra });

function gpt2(corpus) {
  const { vocab, merges } = byte_level_vocab(corpus, GPT2_PATTERN, 700);
  const eot = Object.keys(vocab).length;
  return file({
    added_tokens: [added(eot, '<|endoftext|>')],
    pre_tokenizer: byte_level(),
    post_processor: byte_level({ add_prefix_space: true, trim_offsets: false }),
    decoder: byte_level({ add_prefix_space: true, trim_offsets: true }),
    model: bpe_model(vocab, merges.map(([a, b]) => `${a} ${b}`), { continuing_subword_prefix: '', end_of_word_suffix: '' }),
  });
}

function split_then_byte_level(regex) {
  return { type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false },
    byte_level({ use_regex: false }),
  ] };
}

function llama3(corpus) {
  const { vocab, merges } = byte_level_vocab(corpus, js_regex(LLAMA3_REGEX), 900);
  const n = Object.keys(vocab).length;
  const specials = ['<|begin_of_text|>', '<|end_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>'];
  return file({
    added_tokens: specials.map((t, i) => added(n + i, t)),
    pre_tokenizer: split_then_byte_level(LLAMA3_REGEX),
    post_processor: { type: 'Sequence', processors: [
      byte_level({ trim_offsets: false }),
      { type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '<|begin_of_text|>', type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
        special_tokens: { '<|begin_of_text|>': { id: '<|begin_of_text|>', ids: [n], tokens: ['<|begin_of_text|>'] } } },
    ] },
    decoder: byte_level(),
    model: bpe_model(vocab, merges, { ignore_merges: true }),
  });
}

function qwen2(corpus) {
  const { vocab, merges } = byte_level_vocab(corpus, js_regex(QWEN2_REGEX), 800, [], (s) => s.normalize('NFC'));
  const n = Object.keys(vocab).length;
  return file({
    added_tokens: ['<|endoftext|>', '<|im_start|>', '<|im_end|>'].map((t, i) => added(n + i, t)),
    normalizer: { type: 'NFC' },
    pre_tokenizer: split_then_byte_level(QWEN2_REGEX),
    post_processor: byte_level({ trim_offsets: false }),
    decoder: byte_level(),
    model: bpe_model(vocab, merges.map(([a, b]) => `${a} ${b}`), { continuing_subword_prefix: '', end_of_word_suffix: '' }),
  });
}

function roberta(corpus) {
  const { vocab, merges } = byte_level_vocab(corpus, GPT2_PATTERN, 600, ['<s>', '<pad>', '</s>', '<unk>']);
  const mask = Object.keys(vocab).length;
  vocab['<mask>'] = mask;
  return file({
    added_tokens: [added(0, '<s>'), added(1, '<pad>'), added(2, '</s>'), added(3, '<unk>'),
      added(mask, '<mask>', true, { lstrip: true })],
    pre_tokenizer: byte_level({ add_prefix_space: true }),
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: true },
    decoder: byte_level({ add_prefix_space: true }),
    model: bpe_model(vocab, merges.map(([a, b]) => `${a} ${b}`), { continuing_subword_prefix: '', end_of_word_suffix: '' }),
  });
}

// ---- SentencePiece-style BPE with byte fallback (Llama 2, TinyLlama) ------------------------------
function llama2(corpus) {
  const words = corpus.flatMap((s) => s.split(' ').map((w) => '▁' + w));
  const counts = count_words(words, (w) => [...w]);
  const chars = new Map();
  for (const [s, n] of counts) for (const c of s) chars.set(c, (chars.get(c) ?? 0) + n);
  // The characters seen at least 3 times; the rest of the text falls back to bytes.
  const alphabet = [...chars].filter(([, n]) => n >= 3).map(([c]) => c).sort();
  const merges = learn_merges(new Map([...counts].map(([s, n]) => [s.map((c) => (alphabet.includes(c) ? c : '\u0000')), n])), 700)
    .filter(([a, b]) => !a.includes('\u0000') && !b.includes('\u0000'));
  const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  for (let b = 0; b < 256; ++b) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = Object.keys(vocab).length;
  for (const t of [...merges.map(([a, b]) => a + b), ...alphabet]) if (!(t in vocab)) vocab[t] = Object.keys(vocab).length;
  return file({
    added_tokens: [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>')],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: '▁' },
      { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] },
    post_processor: { type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '<s>', type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' },
      { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
    model: bpe_model(vocab, merges, { unk_token: '<unk>', fuse_unk: true, byte_fallback: true }),
  });
}

// ---- WordPiece (BERT) -----------------------------------------------------------------------------
function bert(corpus) {
  const words = corpus.flatMap((s) => s.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '')
    .match(/[^\s\p{P}\u0021-\u002F\u003A-\u0040\u005B-\u0060\u007B-\u007E]+|[\p{P}\u0021-\u002F\u003A-\u0040\u005B-\u0060\u007B-\u007E]/gu) ?? []);
  const counts = count_words(words, (w) => [...w].map((c, i) => (i ? '##' + c : c)));
  const merges = learn_merges(counts, 900);
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const vocab = {};
  const singles = new Set();
  for (const [s] of counts) for (const c of s) singles.add(c);
  const joined = merges.map(([a, b]) => a + b.replace(/^##/, ''));
  for (const t of [...specials, ...[...singles].sort(), ...joined]) if (!(t in vocab)) vocab[t] = Object.keys(vocab).length;
  return file({
    added_tokens: specials.map((t, i) => added(i, t)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  });
}

// ---- Unigram (T5) ---------------------------------------------------------------------------------
function t5(corpus) {
  const words = corpus.flatMap((s) => s.normalize('NFKC').split(/\s+/).filter((w) => w).map((w) => '▁' + w));
  const counts = count_words(words, (w) => [...w]);
  const merges = learn_merges(counts, 800);
  const pieces = new Set(merges.map(([a, b]) => a + b));
  for (const [s] of counts) for (const c of s) pieces.add(c);
  // Each piece scored by the log of its share of the substrings of the corpus it matches.
  const freq = new Map([...pieces].map((p) => [p, 1]));
  for (const [s, n] of counts) {
    const w = s.join('');
    const cs = [...w];
    for (let i = 0; i < cs.length; ++i)
      for (let j = i + 1; j <= Math.min(cs.length, i + 12); ++j) {
        const p = cs.slice(i, j).join('');
        if (freq.has(p)) freq.set(p, freq.get(p) + n);
      }
  }
  const total = [...freq.values()].reduce((a, b) => a + b, 0);
  // Longer pieces get a bonus, as EM-trained unigram models favour them.
  const scored = [...freq].map(([p, n]) => [p, Math.log(n / total) + 0.7 * [...p].length])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return file({
    added_tokens: [added(0, '<pad>'), added(1, '</s>'), added(2, '<unk>')],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' }] },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' },
      { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true }] },
    post_processor: { type: 'TemplateProcessing',
      single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }],
      special_tokens: { '</s>': { id: '</s>', ids: [1], tokens: ['</s>'] } } },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 2, byte_fallback: false,
      vocab: [['<pad>', 0], ['</s>', 0], ['<unk>', 0], ...scored.map(([p, s]) => [p, Math.round(s * 1e6) / 1e6])] },
  });
}

// ---- goldens --------------------------------------------------------------------------------------
const KINDS = { gpt2, llama3, qwen2, llama2, bert, t5, roberta };

function main() {
  mkdirSync(OUT, { recursive: true });
  const train = rng(1);
  const corpus = Array.from({ length: 4000 }, (_, k) => avoid(test_string(train, k, ['']) ?? caption(train)));
  const r = rng(2);
  // The strings: text, or bytes (hex) for the ones that are not UTF-8. Category 9 puts one of the
  // fixture's added tokens inside; its placeholder \u0001N is replaced per fixture.
  const inputs = [];
  for (let k = 0; k < STRINGS; ++k) {
    if (k % 16 === 10) inputs.push({ hex: Buffer.from(invalid_bytes(r)).toString('hex') });
    else inputs.push({ text: avoid(test_string(r, k, ['\u0001' + (k % 5)])) });
  }
  const per_kind = {};
  for (const [kind, make] of Object.entries(KINDS)) {
    const json = make(corpus);
    const specials = json.added_tokens.map((t) => t.content);
    const fill = (s) => s.replace(/\u0001(\d)/g, (_, d) => specials[Number(d) % specials.length]);
    const tokenizer = new Tokenizer(json, {});
    const cases = inputs.map((input) => {
      const text = input.hex !== undefined ? new TextDecoder().decode(Buffer.from(input.hex, 'hex')) : fill(input.text);
      const { ids } = tokenizer.encode(text);
      const out = { ids };
      if (ids.length) {
        out.decoded = tokenizer.decode(ids, { clean_up_tokenization_spaces: false });
        const skipped = tokenizer.decode(ids, { skip_special_tokens: true, clean_up_tokenization_spaces: false });
        if (skipped !== out.decoded) out.decoded_skipping_special = skipped;
      }
      return out;
    });
    writeFileSync(join(OUT, `${kind}.tokenizer.json`), JSON.stringify(json));
    per_kind[kind] = { specials, cases };
  }
  // One file of inputs, each kind's added-token placeholders resolved by the test the same way.
  writeFileSync(join(OUT, 'inputs.json'), JSON.stringify({ placeholder: '\u0001N: added token N mod the fixture\'s count',
    inputs }) + '\n');
  for (const [kind, { cases }] of Object.entries(per_kind))
    writeFileSync(join(OUT, `${kind}.expected.json`),
      '{"reference": "@huggingface/tokenizers ' + REFERENCE_VERSION + '", "cases": [\n' +
      cases.map((c) => JSON.stringify(c)).join(',\n') + '\n]}\n');
  console.log(`${OUT}: ${STRINGS} strings, ${Object.keys(KINDS).join(', ')}`);
}

main();
