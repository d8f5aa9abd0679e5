// The RNN family's config fields (models/FORMAT.md, "The RNN family").
#include "core/error.h"
#include "families/rnn/rnn.h"
#include "model/config_fields.h"

namespace attnscope::rnn {

using namespace config_fields;

Config Config::from_json(const std::string& text) {
  const json j = parse_json(text, "config metadata", JsonSource::ModelFile);
  Config c;
  c.cell = one_of(j, "cell", {"gru", "lstm"}) == "gru" ? Cell::GRU : Cell::LSTM;
  c.d_embed = int_field(j, "d_embed", 1, kMaxWidth);
  c.d_encoder = int_field(j, "d_encoder", 1, kMaxWidth);
  c.d_hidden = int_field(j, "d_hidden", 1, kMaxWidth);
  c.n_encoder_layers = int_field(j, "n_encoder_layers", 1, kMaxLayers);
  c.n_decoder_layers = int_field(j, "n_decoder_layers", 1, kMaxLayers);
  c.bidirectional = bool_field(j, "bidirectional");
  const std::string style = one_of(j, "attention", {"bahdanau", "luong", "none"});
  c.style = style == "bahdanau" ? Style::Bahdanau : style == "luong" ? Style::Luong : Style::None;
  c.input_feeding = bool_field(j, "input_feeding");
  c.local_window = int_field(j, "local_window", 0, kMaxPositions);
  c.d_attention = int_field(j, "d_attention", 0, kMaxWidth);
  if (c.style == Style::None) {
    one_of(j, "score", {"none"});
    if (c.input_feeding || c.local_window || c.d_attention)
      throw ModelFileError("config: a model without attention has no input_feeding, local_window or d_attention");
    return c;
  }
  const std::string score = one_of(j, "score", {"additive", "dot", "scaled_dot", "general", "cosine", "location"});
  c.score = score == "additive"     ? Score::Additive
            : score == "dot"        ? Score::Dot
            : score == "scaled_dot" ? Score::ScaledDot
            : score == "general"    ? Score::General
            : score == "cosine"     ? Score::Cosine
                                    : Score::Location;
  if ((c.score == Score::Additive) != (c.d_attention > 0))
    throw ModelFileError("config field 'd_attention' must be > 0 with the additive score and 0 otherwise");
  if ((c.score == Score::Dot || c.score == Score::ScaledDot || c.score == Score::Cosine) &&
      c.d_memory() != c.d_hidden)
    throw ModelFileError("config score '" + score + "' compares the decoder state (d_hidden = " +
                         std::to_string(c.d_hidden) + ") with encoder states of " + std::to_string(c.d_memory()) +
                         " values: they must be equal");
  if (c.input_feeding && c.style != Style::Luong)
    throw ModelFileError("config field 'input_feeding' is Luong's: it needs \"attention\": \"luong\"");
  return c;
}

}  // namespace attnscope::rnn
