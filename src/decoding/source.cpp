#include "decoding/source.h"

namespace attnscope {
namespace {

std::string count(std::size_t n) { return std::to_string(n); }

// A prompt as a decoder-only model reads it (source.h).
Source prepare_prompt(const Model& model, const std::string& text, std::optional<bool> prepend_bos) {
  const ModelConfig& c = model.config;
  const std::size_t context = static_cast<std::size_t>(c.max_positions);
  const bool rule = prepend_bos.value_or(c.prepend_bos);
  // The tokenizer stops as soon as the prompt cannot fit (Tokenizer::split_within).
  Encoded encoded = encode(*model.tokenizer, model.src_vocab, text, c.special.unk, context - (rule ? 1 : 0));
  if (encoded.over_limit)
    throw InputError(rule ? "the prompt has more than " + count(context - 1) + " tokens but this model reads at most " +
                                count(context) + " (with <bos>); shorten it"
                          : "the prompt has more than " + count(context) + " tokens but this model reads at most " +
                                count(context) + "; shorten it");
  Source source;
  if (rule || encoded.ids.empty()) {
    source.pieces.push_back(model.src_vocab.token(c.special.bos));
    source.ids.push_back(c.special.bos);
    source.bos = true;
  }
  source.pieces.insert(source.pieces.end(), encoded.pieces.begin(), encoded.pieces.end());
  source.ids.insert(source.ids.end(), encoded.ids.begin(), encoded.ids.end());
  source.unknown = std::move(encoded.unknown);
  return source;
}

}  // namespace

Source prepare_source(const Model& model, const std::string& text, std::optional<bool> prepend_bos) {
  if (model.family->input() == ModelFamily::Input::Prompt) return prepare_prompt(model, text, prepend_bos);
  if (prepend_bos)
    throw InputError("prependBos is for a decoder-only model's prompt: this model reads a source, which has no <bos>");
  const ModelConfig& c = model.config;
  // The tokenizer stops as soon as the sentence cannot fit, so an over-long one costs what the
  // limit allows, not what its length would (Tokenizer::split_within).
  const std::size_t room = static_cast<std::size_t>(c.max_positions) - (c.src_append_eos ? 1 : 0);
  Encoded encoded = encode(*model.tokenizer, model.src_vocab, text, c.special.unk, room);
  if (encoded.over_limit)
    throw InputError("the sentence has more than " + std::to_string(c.max_positions) +
                     " tokens but this model reads at most " + std::to_string(c.max_positions) +
                     " (including </s>); shorten it");
  if (encoded.ids.empty()) throw InputError("the sentence is empty: type some words to translate");
  Source source{std::move(encoded.pieces), std::move(encoded.ids), std::move(encoded.unknown)};
  if (c.src_append_eos) {
    source.pieces.push_back(model.src_vocab.token(c.special.eos));
    source.ids.push_back(c.special.eos);
  }
  if (static_cast<int>(source.ids.size()) > c.max_positions)
    throw InputError("the sentence has " + std::to_string(source.ids.size()) +
                     " tokens but this model reads at most " + std::to_string(c.max_positions) +
                     " (including </s>); shorten it");
  return source;
}

}  // namespace attnscope
