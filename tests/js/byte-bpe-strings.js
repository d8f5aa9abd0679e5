// The texts byte-bpe.test.js tokenizes: generated from a fixed seed, so every run asks the same
// questions. Ten kinds, each drawn from characters assigned by Unicode 14.0 at the latest (the
// engine's tables; Node's regex engine may know a later Unicode, which would disagree on letters
// assigned since, a difference of versions, not of tokenizers).

/** A small, seeded generator (mulberry32): uniform floats in [0, 1). */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ('the a man woman dog is are was running on in of to and with playing two young people street '
  + 'water ball little girl boy red blue standing sitting front white black shirt group near while another '
  + 'their his her looking at down over outside camera Quite Simply It The A An I We You They Hello World '
  + 'OpenAI GPT transformer attention headline Multi30k BERT tokenizer isn\'t').split(' ');
const PUNCTUATION = ['.', ',', '!', '?', ';', ':', '...', ' -', ' --', '"', '(', ')', '?!', '\u2014', '\u201c', '\u201d'];
const CODE = ['def', 'f(x):', 'return', 'x', '+', '1', 'for', 'i', 'in', 'range(10):', 'if', '(a', '&&', 'b)', '{', '}',
  '=>', '===', 'const', 'let', 'y', '=', '[1,', '2,', '3];', '#include', '<vector>', 'std::vector<int>', 'v;', '//',
  'TODO', '/*', '*/', '0x1F', 'x[i]', '+=', '"str"', "'c'", '\\n', 'print("hi")', 'self.w', '@decorator', '->', '::',
  '$var', '%d', '^', '~', '|', '`cmd`', '},', '<=', '>=', '!=', ',,', ',,,', 'a,b', '","'];
const ACCENTED = ['caf\u00e9', 'na\u00efve', '\u00c6r\u00f8sk\u00f8bing', 'stra\u00dfe', '\u00fcber', 'ni\u00f1o', 'fa\u00e7ade',
  'Z\u00fcrich', '\u0141\u00f3d\u017a', '\u011fda', '\u0161\u010d\u0159', 'S\u00e3o', 'Tr\u00e0 Vinh', '\u00e9t\u00e9', '\u0152uvre',
  '\u00c0 la', '\u1ebfn', '\u0103n', '\u0391\u03b8\u03ae\u03bd\u03b1', '\u041c\u043e\u0441\u043a\u0432\u0430', '\u0130stanbul',
  '\u00ed\u00f0', '\u00fe\u00e6r', '\u01c5', '\u1e9e', '\u00b5'];
const CJK = ['\u65e5\u672c\u8a9e', '\u4e2d\u6587', '\u6f22\u5b57', '\u3053\u3093\u306b\u3061\u306f', '\u30ab\u30bf\u30ab\u30ca',
  '\ud55c\uad6d\uc5b4', '\uc548\ub155\ud558\uc138\uc694', '\u3001', '\u3002', '\u300c', '\u300d', '\uff01', '\uff1f', '\u5c71',
  '\u6c34', '\u4eba', '\u4e00\u4e8c\u4e09', '\u3000', '\ud840\udc0b', '\ud869\udea5', '\u30fc', '\uff21\uff22\uff23'];
const EMOJI = ['\u{1f600}', '\u{1f44d}', '\u{1f44d}\u{1f3fd}', '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}\u200d\u{1f466}',
  '\u{1f3f3}\ufe0f\u200d\u{1f308}', '\u{1f469}\u200d\u{1f4bb}', '\u2764\ufe0f', '\u{1f1eb}\u{1f1f7}', '\u{1f1ef}\u{1f1f5}',
  '1\ufe0f\u20e3', '#\ufe0f\u20e3', '\u2603', '\u{1f408}\u200d\u2b1b', '\u{1f9d1}\u{1f3ff}\u200d\u{1f9b0}', '\u2728', '\u{1f525}',
  '\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}', '\u263a', '\u{1f92f}'];
const BASES = ['a', 'e', 'o', 'n', 'A', 'Z', '\u03b1', '\u0438', 'x'];
const MARKS = ['\u0301', '\u0300', '\u0308', '\u0303', '\u0327', '\u030c', '\u0323', '\u0336', '\u20dd', '\u0489'];
const SCRIPTS_WITH_MARKS = ['\u0939\u093f\u0928\u094d\u0926\u0940', '\u0915\u094d\u0937', '\u0639\u064e\u0631\u064e\u0628\u0650\u064a\u0651',
  '\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd', '\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22', '\u1100\u1161\u11a8',
  '\u0f56\u0f7c\u0f51', '\u0dc3\u0dd2\u0d82'];
const NUMBERS = ['0', '7', '42', '1999', '3.14159', '1,000,000', '-12', '1e-5', '\u0663\u0664', '\u0967\u0968', '\u00bd', '\u00b2',
  '\u2167', '\u2460', '\uff11\uff12', '\u{1d7d8}', '10%', '$5', '\u00a35.99', '24/7', '007', '1st', '2nd', '3rd'];
const CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'VE", "'M", "'LL", "'D",
  '\u2019s', '\u2019t', "''", "'", "'x", "'st", "'ss", "'ll'", "'dd"];
const CONTRACTION_STEMS = ['it', 'he', 'she', 'they', 'we', 'I', 'you', 'don', 'can', 'won', 'IT', 'DON', 'John', '', ' ', 'x'];
const SPACES = [' ', ' ', ' ', '  ', '   ', '\t', '\t\t', '\n', '\n\n', '\r\n', ' \n', '\n ', '\u00a0', '\u3000', '\u2009',
  ' \t ', '\u2028', '\u000b', '\u000c'];

export function generateTexts(seed = 50257) {
  const random = seeded(seed);
  const int = (n) => Math.floor(random() * n);
  const pick = (list) => list[int(list.length)];
  const join = (parts, spaces = [' ']) => parts.map((p, i) => (i ? pick(spaces) : '') + p).join('');
  const many = (n, make) => Array.from({ length: n }, make);
  const sentence = () => {
    const words = many(1 + int(12), () => pick(WORDS));
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return words.join(' ') + pick(PUNCTUATION);
  };
  const kinds = {
    english: () => join(many(1 + int(3), sentence)),
    code: () => many(1 + int(6), () => join(many(1 + int(8), () => pick(CODE)), [' ', ' ', ''])).map((l) => pick(['', '    ', '\t', '  '])
      + l).join(pick(['\n', '\n\n', '\r\n'])),
    accents: () => join(many(1 + int(6), () => pick(random() < 0.6 ? ACCENTED : WORDS)), [' ', ' ', ', ', '-']),
    cjk: () => many(1 + int(8), () => pick(random() < 0.8 ? CJK : [...WORDS, ' ', '1'])).join(pick(['', '', ' '])),
    emoji: () => join(many(1 + int(6), () => pick(random() < 0.6 ? EMOJI : WORDS)), [' ', '', '  ']),
    marks: () => join(many(1 + int(5), () => (random() < 0.5 ? pick(SCRIPTS_WITH_MARKS)
      : pick(BASES) + many(1 + int(3), () => pick(MARKS)).join('') + pick(['', 'b', 'cd'])))),
    digits: () => join(many(1 + int(6), () => pick(random() < 0.7 ? NUMBERS : WORDS)), [' ', '', ', ', '-']),
    contractions: () => join(many(1 + int(5), () => pick(CONTRACTION_STEMS) + pick(CONTRACTIONS) + pick(['', '', 'x', ' a', '.']))),
    whitespace: () => pick(['', ...SPACES]) + join(many(1 + int(5), () => pick(WORDS)), SPACES) + pick(['', '', ...SPACES]),
    mixed: () => many(1 + int(20), () => pick([WORDS, CODE, ACCENTED, CJK, EMOJI, MARKS, NUMBERS, CONTRACTIONS, SPACES,
      PUNCTUATION][int(10)])).join(''),
  };
  const texts = [''];
  for (const [kind, make] of Object.entries(kinds)) {
    const n = kind === 'english' || kind === 'mixed' ? 300 : 200;
    for (let i = 0; i < n; ++i) texts.push(make());
  }
  return texts;
}
