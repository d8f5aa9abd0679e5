#include "analysis/bleu.h"

#include <cmath>
#include <map>

#include "core/error.h"

namespace attnscope {

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// How many bytes of UTF-8 white space start at s[i] (0: none), as Python's str.split() sees white
// space: ASCII's, U+001C-U+001F, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
// U+205F, U+3000.
std::size_t white_space_at(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned b0 = byte(i), b1 = byte(i + 1), b2 = byte(i + 2);
  if ((b0 >= 0x09 && b0 <= 0x0d) || (b0 >= 0x1c && b0 <= 0x20)) return 1;
  if (b0 == 0xc2 && (b1 == 0x85 || b1 == 0xa0)) return 2;
  if (b0 == 0xe1 && b1 == 0x9a && b2 == 0x80) return 3;
  if (b0 == 0xe2 && b1 == 0x80 && ((b2 >= 0x80 && b2 <= 0x8a) || b2 == 0xa8 || b2 == 0xa9 || b2 == 0xaf)) return 3;
  if (b0 == 0xe2 && b1 == 0x81 && b2 == 0x9f) return 3;
  if (b0 == 0xe3 && b1 == 0x80 && b2 == 0x80) return 3;
  return 0;
}

// The words of `s`, split at white space as sacrebleu's str.split() does (not std::istream >>
// word: no iostreams in the engine, see decoding/options.cpp; and it knows only ASCII's spaces).
std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    for (std::size_t n; i < s.size() && (n = white_space_at(s, i)) > 0;) i += n;
    const std::size_t start = i;
    while (i < s.size() && white_space_at(s, i) == 0) ++i;
    if (i > start) out.emplace_back(s, start, i - start);
  }
  return out;
}

using Ngrams = std::map<std::vector<std::string>, int>;

Ngrams ngrams(const std::vector<std::string>& tokens) {
  Ngrams counts;
  for (size_t n = 1; n <= 4; ++n)
    for (size_t i = 0; i + n <= tokens.size(); ++i) ++counts[{tokens.begin() + i, tokens.begin() + i + n}];
  return counts;
}

bool digit(char c) { return c >= '0' && c <= '9'; }
bool period_or_comma(char c) { return c == '.' || c == ','; }

// mteval-v13a's symbol class [{-~[-` -&(-+:-@/]: every ASCII punctuation mark except ' , - .
bool symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
         (c >= ':' && c <= '@') || c == '/';
}

// What std::regex_replace(s, "(A)(B)", before + "$1" + between + "$2" + after) does for a pattern
// of two single characters: matches are taken left to right and do not overlap.
template <class First, class Second>
std::string split_pairs(const std::string& s, First first, Second second, const char* before, const char* between,
                        const char* after) {
  std::string out;
  std::size_t i = 0;
  while (i + 1 < s.size()) {
    if (first(s[i]) && second(s[i + 1])) {
      ((((out += before) += s[i]) += between) += s[i + 1]) += after;
      i += 2;
    } else {
      out += s[i++];
    }
  }
  if (i < s.size()) out += s[i];
  return out;
}

}  // namespace

// The language-dependent rules of mteval-v13a, in its order (sacrebleu's regular expressions,
// written as loops: std::regex and the locales it links cost the .wasm ~ its own size).
// They only name ASCII characters, so applying them to UTF-8 bytes is the same as applying them
// to code points.
std::string tokenize_13a(const std::string& input) {
  std::string line = input;
  replace_all(line, "<skipped>", "");
  replace_all(line, "-\n", "");
  replace_all(line, "\n", " ");
  if (line.find('&') != std::string::npos) {
    replace_all(line, "&quot;", "\"");
    replace_all(line, "&amp;", "&");
    replace_all(line, "&lt;", "<");
    replace_all(line, "&gt;", ">");
  }
  line = " " + line + " ";
  std::string spaced;
  for (const char c : line) {
    if (symbol(c)) ((spaced += ' ') += c) += ' ';
    else spaced += c;
  }
  const auto non_digit = [](char c) { return !digit(c); };
  line = split_pairs(spaced, non_digit, period_or_comma, "", " ", " ");
  line = split_pairs(line, period_or_comma, non_digit, " ", " ", "");
  line = split_pairs(line, digit, [](char c) { return c == '-'; }, "", " ", " ");
  std::string out;
  for (const std::string& w : split(line)) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::size_t count_words(const std::string& line) { return split(line).size(); }

Bleu corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
  if (hypotheses.size() != references.size())
    throw InputError("BLEU needs one reference per hypothesis: got " + std::to_string(hypotheses.size()) +
                     " hypotheses and " + std::to_string(references.size()) + " references");
  std::array<double, 4> correct{}, total{};
  Bleu b;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    auto rstrip = [](std::string s) { return s.erase(s.find_last_not_of(" \t\n\r\f\v") + 1); };
    const auto hyp = split(tokenize_13a(rstrip(hypotheses[i])));
    const auto ref = split(tokenize_13a(rstrip(references[i])));
    b.hyp_len += static_cast<long>(hyp.size());
    b.ref_len += static_cast<long>(ref.size());
    const Ngrams ref_counts = ngrams(ref);
    for (const auto& [gram, count] : ngrams(hyp)) {
      const auto r = ref_counts.find(gram);
      correct[gram.size() - 1] += std::min(count, r == ref_counts.end() ? 0 : r->second);
    }
    for (size_t n = 1; n <= 4; ++n) total[n - 1] += hyp.size() >= n ? static_cast<double>(hyp.size() - n + 1) : 0.0;
  }
  b.brevity_penalty = b.hyp_len >= b.ref_len ? 1.0 : b.hyp_len > 0 ? std::exp(1.0 - double(b.ref_len) / b.hyp_len) : 0.0;
  if (correct[0] + correct[1] + correct[2] + correct[3] == 0) return b;  // no match at all: 0 (as sacreBLEU)
  // "exp" smoothing: the k-th order with no match counts as 1 / 2^k matches.
  double smooth = 1.0, log_sum = 0.0;
  for (size_t n = 0; n < 4; ++n) {
    if (total[n] == 0) break;
    if (correct[n] == 0) {
      smooth *= 2;
      b.precisions[n] = 100.0 / (smooth * total[n]);
    } else {
      b.precisions[n] = 100.0 * correct[n] / total[n];
    }
  }
  for (double p : b.precisions) log_sum += p > 0 ? std::log(p) : -9999999999.0;
  b.score = b.brevity_penalty * std::exp(log_sum / 4);
  return b;
}

}  // namespace attnscope
