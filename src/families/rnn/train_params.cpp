#include "families/rnn/train_params.h"

#include <string>
#include <utility>

#include "core/error.h"
#include "layers/params.h"  // linear_zeros, add_tensors, sort_by_name

namespace attnscope::train {
namespace {

rnn::CellWeights cell_zeros(int gates, int hidden, int in) {
  return {Matrix::Zero(gates * hidden, in), Matrix::Zero(gates * hidden, hidden), RowVector::Zero(gates * hidden),
          RowVector::Zero(gates * hidden)};
}

// nn.GRU / nn.LSTM name their tensors weight_ih_l0, weight_ih_l0_reverse, ...; nn.GRUCell weight_ih.
void add_cell(TensorList& out, const std::string& prefix, const std::string& suffix, rnn::CellWeights& c) {
  out.push_back({prefix + "weight_ih" + suffix, c.weight_ih, false});
  out.push_back({prefix + "weight_hh" + suffix, c.weight_hh, false});
  out.push_back({prefix + "bias_ih" + suffix, c.bias_ih, true});
  out.push_back({prefix + "bias_hh" + suffix, c.bias_hh, true});
}

}  // namespace

RnnParams RnnParams::zeros(const ModelConfig& shared, int src_vocab_size, int tgt_vocab_size) {
  RnnParams p;
  p.shared = shared;
  p.config = rnn::Config::from_json(shared.family_json);
  p.src_vocab_size = src_vocab_size;
  p.tgt_vocab_size = tgt_vocab_size;
  const rnn::Config& c = p.config;
  const int E = c.d_embed, H = c.d_hidden, D = c.d_memory();
  const int gates = c.cell == rnn::Cell::GRU ? 3 : 4;
  rnn::Weights& w = p.weights;
  w.shared_embeddings = shared.shared_embeddings;
  w.src_embed = ops::WeightMatrix::plain(Matrix::Zero(src_vocab_size, E));
  if (!shared.shared_embeddings) w.tgt_embed_ = ops::WeightMatrix::plain(Matrix::Zero(tgt_vocab_size, E));
  for (int l = 0; l < c.n_encoder_layers; ++l)
    for (int dir = 0; dir < c.directions(); ++dir) w.encoder.push_back(cell_zeros(gates, c.d_encoder, l == 0 ? E : D));
  w.bridge = linear_zeros(H, D);
  const int feed = c.style == rnn::Style::Luong ? (c.input_feeding ? H : 0) : D;
  for (int l = 0; l < c.n_decoder_layers; ++l) w.decoder.push_back(cell_zeros(gates, H, l == 0 ? E + feed : H));
  if (c.style != rnn::Style::None) {
    rnn::AttentionWeights& a = w.attention;
    if (c.score == rnn::Score::Additive) {
      a.query_proj = Matrix::Zero(c.d_attention, H);
      a.key_proj = Matrix::Zero(c.d_attention, D);
      a.v = Matrix::Zero(1, c.d_attention);
    } else if (c.score == rnn::Score::General) {
      a.key_proj = Matrix::Zero(H, D);
    } else if (c.score == rnn::Score::Location) {
      a.location_proj = Matrix::Zero(shared.max_positions, H);
    }
    if (c.local_window > 0) {
      a.position_proj = Matrix::Zero(H, H);
      a.position_v = Matrix::Zero(1, H);
    }
  }
  if (c.style == rnn::Style::Luong) w.combine = Matrix::Zero(H, D + H);
  w.output = linear_zeros(tgt_vocab_size, c.style == rnn::Style::Luong ? H : H + D);
  return p;
}

TensorList RnnParams::tensors() {
  rnn::Weights& w = weights;
  TensorList out;
  out.push_back({"src_embed.weight", w.src_embed.plain_matrix(), false});
  if (!shared.shared_embeddings) out.push_back({"tgt_embed.weight", w.tgt_embed_.plain_matrix(), false});
  for (int l = 0; l < config.n_encoder_layers; ++l)
    for (int dir = 0; dir < config.directions(); ++dir)
      add_cell(out, "encoder.rnn.", "_l" + std::to_string(l) + (dir ? "_reverse" : ""),
               w.encoder[static_cast<std::size_t>(l * config.directions() + dir)]);
  add_tensors(out, "bridge", w.bridge);
  for (std::size_t l = 0; l < w.decoder.size(); ++l)
    add_cell(out, "decoder.cells." + std::to_string(l) + ".", "", w.decoder[l]);
  rnn::AttentionWeights& a = w.attention;
  const std::pair<const char*, Matrix*> attention_tensors[] = {
      {"attention.query_proj.weight", &a.query_proj},       {"attention.key_proj.weight", &a.key_proj},
      {"attention.v.weight", &a.v},                         {"attention.location_proj.weight", &a.location_proj},
      {"attention.position_proj.weight", &a.position_proj}, {"attention.position_v.weight", &a.position_v}};
  for (const auto& [name, tensor] : attention_tensors)
    if (tensor->size()) out.push_back({name, *tensor, false});
  if (w.combine.size()) out.push_back({"combine.weight", w.combine, false});
  add_tensors(out, "output", w.output);
  sort_by_name(out);
  return out;
}

void RnnParams::set_zero() {
  for (NamedTensor& t : tensors()) t.tensor->setZero();
}

}  // namespace attnscope::train
