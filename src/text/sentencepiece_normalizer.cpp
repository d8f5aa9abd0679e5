#include "text/sentencepiece_normalizer.h"

#include <vector>

#include "text/utf8.h"

namespace attnscope {

SentencePieceNormalizer::SentencePieceNormalizer(const SentencePieceModel& model)
    : add_dummy_prefix_(model.add_dummy_prefix),
      remove_extra_whitespaces_(model.remove_extra_whitespaces),
      escape_whitespaces_(model.escape_whitespaces) {
  if (!model.precompiled_charsmap.empty())
    charsmap_ = std::make_unique<PrecompiledCharsmap>(model.precompiled_charsmap);
  std::vector<std::pair<std::string_view, int>> user_defined;
  for (std::size_t i = 0; i < model.pieces.size(); ++i)
    if (model.pieces[i].type == SentencePieceModel::PieceType::UserDefined)
      user_defined.emplace_back(model.pieces[i].text, static_cast<int>(i));
  user_defined_ = PiecePrefixIndex(user_defined);
}

std::pair<std::string_view, std::size_t> SentencePieceNormalizer::normalize_prefix(std::string_view input) const {
  if (const std::size_t n = user_defined_.longest_prefix(input)) return {input.substr(0, n), n};
  if (charsmap_) {
    const PrecompiledCharsmap::Match m = charsmap_->longest_prefix(input);
    if (m.length > 0) return {m.replacement, m.length};
  }
  if (const std::size_t n = utf8_sequence_length(input, 0)) return {input.substr(0, n), n};
  return {"\xEF\xBF\xBD", 1};  // U+FFFD for one malformed byte
}

std::string SentencePieceNormalizer::normalize(std::string_view input) const {
  std::string out;
  if (remove_extra_whitespaces_) {
    while (!input.empty()) {
      const auto [text, consumed] = normalize_prefix(input);
      if (text != " ") break;
      input.remove_prefix(consumed);
    }
  }
  if (input.empty()) return out;
  const auto append_space = [&] {
    if (escape_whitespaces_) out += kSentencePieceSpace;
    else out += ' ';
  };
  if (add_dummy_prefix_) append_space();
  bool previous_was_space = remove_extra_whitespaces_;
  while (!input.empty()) {
    auto [text, consumed] = normalize_prefix(input);
    // A piece that follows a space loses its own leading spaces.
    while (previous_was_space && !text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (!text.empty()) {
      for (char c : text) {
        if (c == ' ' && escape_whitespaces_) out += kSentencePieceSpace;
        else out += c;
      }
      previous_was_space = text.back() == ' ';
    }
    input.remove_prefix(consumed);
    if (!remove_extra_whitespaces_) previous_was_space = false;
  }
  if (remove_extra_whitespaces_) {
    const std::string_view space = escape_whitespaces_ ? kSentencePieceSpace : std::string_view(" ");
    while (out.size() >= space.size() && std::string_view(out).substr(out.size() - space.size()) == space)
      out.resize(out.size() - space.size());
  }
  return out;
}

}  // namespace attnscope
