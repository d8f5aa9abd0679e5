#include "analysis/bleu.h"

#include <cmath>
#include <map>
#include <regex>
#include <sstream>

#include "core/error.h"

namespace attnscope {

namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

std::vector<std::string> split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

using Ngrams = std::map<std::vector<std::string>, int>;

Ngrams ngrams(const std::vector<std::string>& tokens) {
  Ngrams counts;
  for (size_t n = 1; n <= 4; ++n)
    for (size_t i = 0; i + n <= tokens.size(); ++i) ++counts[{tokens.begin() + i, tokens.begin() + i + n}];
  return counts;
}

}  // namespace

std::string tokenize_13a(const std::string& input) {
  // The language-dependent rules of mteval-v13a, in its order. They only name ASCII
  // characters, so applying them to UTF-8 bytes is the same as applying them to code points.
  static const std::regex symbols(R"(([\{-\~\[-\` -\&\(-\+\:-\@\/]))");
  static const std::regex period_comma_after_non_digit(R"(([^0-9])([\.,]))");
  static const std::regex period_comma_before_non_digit(R"(([\.,])([^0-9]))");
  static const std::regex dash_after_digit(R"(([0-9])(-))");
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
  line = std::regex_replace(line, symbols, " $1 ");
  line = std::regex_replace(line, period_comma_after_non_digit, "$1 $2 ");
  line = std::regex_replace(line, period_comma_before_non_digit, " $1 $2");
  line = std::regex_replace(line, dash_after_digit, "$1 $2 ");
  std::string out;
  for (const std::string& w : split(line)) out += (out.empty() ? "" : " ") + w;
  return out;
}

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
  if (correct[0] + correct[1] + correct[2] + correct[3] == 0) return b;  // no match at all: 0 (sacreBLEU #141)
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
