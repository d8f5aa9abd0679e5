// The RNN encoder-decoder (Cho et al. 2014; Bahdanau et al. 2015; Luong et al. 2015) as the page
// draws it: a GRU or LSTM encoder, a decoder RNN, and attention of a style and score, or none.
// Where the attention block stands says when it scores: Bahdanau's before the decoder RNN (with
// the previous state; its context goes into the RNN), Luong's after it (with the current state;
// h̃ = tanh(W[c; h_t]) feeds the output).
#include "families/rnn/rnn.h"

namespace attnscope::rnn {

namespace {

const char* cell_name(Cell cell) { return cell == Cell::GRU ? "GRU" : "LSTM"; }

const char* style_name(Style style) { return style == Style::Bahdanau ? "Bahdanau" : "Luong"; }

const char* score_name(Score score) {
  switch (score) {
    case Score::Additive: return "additive (concat, with v)";
    case Score::Dot: return "dot";
    case Score::ScaledDot: return "scaled dot";
    case Score::General: return "general (bilinear)";
    case Score::Cosine: return "cosine";
    case Score::Location: return "location";
  }
  return "";
}

}  // namespace

ArchitectureDescription Rnn::describe(const Model& model) const {
  using description::plural;
  const Config& c = config_;
  const std::string cell = cell_name(c.cell);
  const std::string d_hidden = std::to_string(c.d_hidden), window = std::to_string(c.local_window);
  const std::string per_direction = c.bidirectional ? " per direction" : "";
  const std::string encoder = std::string(c.bidirectional ? "bidirectional " : "") + cell + " encoder (" +
                              plural(c.n_encoder_layers, "layer") + ", " + std::to_string(c.d_encoder) + " units" +
                              per_direction + ")";
  const std::string decoder = cell + " decoder (" + plural(c.n_decoder_layers, "layer") + ", " + d_hidden + " units)";
  std::string attention;
  if (c.style == Style::None) {
    attention = "no attention: the decoder starts from, and is fed at every step, the encoder's final state";
  } else {
    attention = std::string(style_name(c.style)) + " attention, " + score_name(c.score) + " score" +
                (c.score == Score::Additive && c.d_attention ? ", " + std::to_string(c.d_attention) + " units" : "") +
                (c.local_window > 0 ? ", local-p window ±" + window : ", global") +
                (c.input_feeding ? ", input feeding" : "");
  }

  ArchitectureDescription d;
  d.family = "RNN encoder-decoder";
  d.words = "RNN encoder-decoder: " + encoder + ", " + decoder + ", " + attention + "; " + description::vocabulary(model) + ".";
  const std::string embedding = std::to_string(c.d_embed) + " values";
  d.blocks = {
      {"src", "Encoder", "Source embedding", embedding},
      {"enc", "Encoder", std::string(c.bidirectional ? "Bi-" : "") + cell + " × " + std::to_string(c.n_encoder_layers),
       std::to_string(c.d_encoder) + " units" + per_direction},
      {"tgt", "Decoder", "Target embedding", embedding},
  };
  const auto rnn_block = [&](const std::string& detail) {
    return ArchitectureDescription::Block{"dec", "Decoder", cell + " × " + std::to_string(c.n_decoder_layers), detail};
  };
  const auto attention_block = [&](const std::string& when) {
    return ArchitectureDescription::Block{
        "attn", "Decoder", std::string(style_name(c.style)) + " attention",
        score_name(c.score) + (c.local_window > 0 ? ", local ±" + window : std::string()) + "; " + when};
  };
  if (c.style == Style::Bahdanau) {
    d.blocks.push_back(attention_block("scores s(i−1)"));
    d.blocks.push_back(rnn_block(d_hidden + " units; input: embedding + context"));
    d.links.push_back({"enc", "attn", "encoder states"});
  } else if (c.style == Style::Luong) {
    d.blocks.push_back(rnn_block(d_hidden + " units" + (c.input_feeding ? "; input: embedding + last h̃" : "")));
    d.blocks.push_back(attention_block("scores h(t) → h̃"));
    d.links.push_back({"enc", "attn", "encoder states"});
  } else {
    d.blocks.push_back(rnn_block(d_hidden + " units; input: embedding + final state"));
    d.links.push_back({"enc", "dec", "final state only"});
  }
  d.blocks.push_back({"out", "Decoder", "Linear + softmax", std::to_string(model.tgt_vocab.size()) + " target tokens"});
  return d;
}

}  // namespace attnscope::rnn
