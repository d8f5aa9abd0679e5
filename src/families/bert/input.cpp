// How BERT reads a text (model/encoder_only.h tokenize): "[CLS] pieces [SEP]", a pair's segments
// from its first [SEP].
#include <algorithm>

#include "families/bert/bert.h"

namespace attnscope::bert {

EncoderInput Bert::tokenize(const Model& model, const std::string& text) const {
  const SpecialTokens& s = model.config.special;
  // [CLS] and [SEP] take two positions; the tokenizer stops once the rest cannot fit.
  const Encoded e = attnscope::encode(*model.tokenizer, model.src_vocab, text, s.unk,
                           static_cast<std::size_t>(std::max(model.config.max_positions - 2, 0)));
  if (e.over_limit)
    throw InputError("the text has more than " + std::to_string(model.config.max_positions) +
                     " pieces with [CLS] and [SEP]; this model reads at most " + std::to_string(model.config.max_positions));
  if (e.ids.empty()) throw InputError("the text has no tokens: type a sentence (or two, separated by [SEP])");
  EncoderInput in;
  in.pieces.push_back(model.src_vocab.token(s.bos));
  in.ids.push_back(s.bos);
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    in.pieces.push_back(e.pieces[i]);
    in.ids.push_back(e.ids[i]);
  }
  in.pieces.push_back(model.src_vocab.token(s.eos));
  in.ids.push_back(s.eos);
  if (static_cast<int>(in.ids.size()) > model.config.max_positions)
    throw InputError("the text has " + std::to_string(in.ids.size()) + " pieces with [CLS] and [SEP]; this model reads at most " +
                     std::to_string(model.config.max_positions));
  in.unknown = e.unknown;
  in.segments = segments_of(in.ids);
  return in;
}

}  // namespace attnscope::bert
