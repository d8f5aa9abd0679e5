#include "decoding/source.h"

namespace attnscope {

Source prepare_source(const Model& model, const std::string& text) {
  const ModelConfig& c = model.config;
  // The tokenizer stops as soon as the sentence cannot fit, so an over-long one costs what the
  // limit allows, not what its length would (Tokenizer::split_within).
  const std::size_t room = static_cast<std::size_t>(c.max_positions) - (c.src_append_eos ? 1 : 0);
  Encoded encoded = encode(*model.tokenizer, model.src_vocab, text, c.special.unk, room);
  if (encoded.over_limit)
    throw InputError("the sentence has more than " + std::to_string(c.max_positions) +
                     " tokens but this model reads at most " + std::to_string(c.max_positions) +
                     " (including </s>); shorten it");
  if (encoded.ids.empty())
    throw InputError(model.family->input() == ModelFamily::Input::Prompt
                         ? "the prompt is empty: type a few words for the model to continue"
                         : "the sentence is empty: type some words to translate");
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
