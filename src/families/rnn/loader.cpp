// The RNN family's tensors (models/FORMAT.md, "The RNN family"), each checked against the config.
// The cells keep PyTorch's names: nn.GRU / nn.LSTM for the encoder, nn.GRUCell / nn.LSTMCell for
// the decoder's layers.
#include "families/rnn/rnn.h"

namespace attnscope::rnn {
namespace {

CellWeights cell(WeightReader& w, const std::string& prefix, const std::string& suffix, int gates, int hidden,
                 int in) {
  return CellWeights{w.matrix(prefix + "weight_ih" + suffix, gates * hidden, in),
                     w.matrix(prefix + "weight_hh" + suffix, gates * hidden, hidden),
                     w.vector(prefix + "bias_ih" + suffix, gates * hidden),
                     w.vector(prefix + "bias_hh" + suffix, gates * hidden)};
}

}  // namespace

// LoadOptions::int8 is not applied: an RNN step is small, its products stay exact.
std::unique_ptr<ModelFamily> load(const Model& m, WeightReader& w, const Model::LoadOptions&) {
  const Config c = Config::from_json(m.config.family_json);
  const int E = c.d_embed, H = c.d_hidden, D = c.d_memory();
  const int gates = c.cell == Cell::GRU ? 3 : 4;
  Weights t;
  t.shared_embeddings = m.config.shared_embeddings;
  t.src_embed = w.embedding_table("src_embed.weight", m.src_vocab.size(), E, false);
  if (!t.shared_embeddings) t.tgt_embed_ = w.embedding_table("tgt_embed.weight", m.tgt_vocab.size(), E, false);

  for (int l = 0; l < c.n_encoder_layers; ++l)
    for (int dir = 0; dir < c.directions(); ++dir)
      t.encoder.push_back(cell(w, "encoder.rnn.", "_l" + std::to_string(l) + (dir ? "_reverse" : ""), gates,
                               c.d_encoder, l == 0 ? E : D));
  t.bridge = w.linear("bridge", H, D);

  // The first decoder layer reads the embedding and what the style feeds with it.
  const int feed = c.style == Style::Luong ? (c.input_feeding ? H : 0) : D;
  for (int l = 0; l < c.n_decoder_layers; ++l)
    t.decoder.push_back(cell(w, "decoder.cells." + std::to_string(l) + ".", "", gates, H, l == 0 ? E + feed : H));

  if (c.style != Style::None) {
    if (c.score == Score::Additive) {
      t.attention.query_proj = w.matrix("attention.query_proj.weight", c.d_attention, H);
      t.attention.key_proj = w.matrix("attention.key_proj.weight", c.d_attention, D);
      t.attention.v = w.matrix("attention.v.weight", 1, c.d_attention);
    } else if (c.score == Score::General) {
      t.attention.key_proj = w.matrix("attention.key_proj.weight", H, D);
    } else if (c.score == Score::Location) {
      // One row per source position the model reads (max_positions, a source's longest, </s> included).
      t.attention.location_proj = w.matrix("attention.location_proj.weight", m.config.max_positions, H);
    }
    if (c.local_window > 0) {
      t.attention.position_proj = w.matrix("attention.position_proj.weight", H, H);
      t.attention.position_v = w.matrix("attention.position_v.weight", 1, H);
    }
  }
  if (c.style == Style::Luong) {
    t.combine = w.matrix("combine.weight", H, D + H);
    t.output = w.linear("output", m.tgt_vocab.size(), H);
  } else {
    t.output = w.linear("output", m.tgt_vocab.size(), H + D);
  }
  return std::make_unique<Rnn>(m.config, c, std::move(t));
}

}  // namespace attnscope::rnn
