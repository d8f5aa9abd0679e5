#pragma once
// The RNN encoder-decoder with attention (Bahdanau et al. 2015; Luong et al. 2015) and its
// no-attention baseline (Cho et al. 2014): one model family behind the seam of model/family.h.
// Embedding, a GRU or LSTM encoder (optionally bidirectional, stacked), a decoder RNN that
// scores every encoder state at every step. The reference is models/reference/attnscope_ref/rnn.py; the
// file format (config fields, tensor names) is in models/FORMAT.md ("The RNN family").
//
// One step for one hypothesis (s: the top decoder layer's state, H: the encoder states):
//   bahdanau:  a = softmax(score(s_{i-1}, H)); c = a H; s_i = RNN([e; c], s_{i-1}); logits = W_o [s_i; c] + b
//   luong:     s_i = RNN([e; h~_{i-1}] or e, s_{i-1}); a = softmax(score(s_i, H)); c = a H;
//              h~_i = tanh(W_c [c; s_i]); logits = W_o h~_i + b
//   none:      c = the encoder's final state; otherwise as bahdanau
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "model/weight_reader.h"

namespace attnscope::rnn {

enum class Cell { GRU, LSTM };
enum class Style { Bahdanau, Luong, None };
enum class Score { Additive, Dot, ScaledDot, General, Cosine, Location };

// The family's own config fields (models/FORMAT.md), parsed from ModelConfig::family_json.
struct Config {
  Cell cell = Cell::GRU;
  int d_embed = 0;             // E: token embeddings, both sides
  int d_encoder = 0;           // encoder hidden size per direction
  int d_hidden = 0;            // H: decoder hidden size
  int n_encoder_layers = 1, n_decoder_layers = 1;
  bool bidirectional = false;
  Style style = Style::Bahdanau;
  Score score = Score::Additive;
  int d_attention = 0;         // A: the additive score's hidden size (0 otherwise)
  bool input_feeding = false;  // Luong: h~_{i-1} joins the decoder's input
  int local_window = 0;        // D of Luong's local-p attention; 0: global attention

  int directions() const { return bidirectional ? 2 : 1; }
  int d_memory() const { return d_encoder * directions(); }  // one encoder state
  // Throws ModelFileError naming the bad field.
  static Config from_json(const std::string& text);
};

// What one cell step computed, kept when asked for backpropagation through time
// (families/rnn/backward.cpp); inference passes no record and pays nothing for it.
struct CellRecord {
  RowVector h_prev, c_prev;  // [1, hidden] the state the step started from (c: LSTM)
  RowVector gates;           // [gates * hidden] after their nonlinearities: GRU r, z, n; LSTM i, f, g, o
  RowVector hp_n;            // [hidden] GRU: W_hn h + b_hn (what r multiplies)
  RowVector c;               // [hidden] LSTM: the new cell
};

// The cell's gates from both projections, x_proj = x W_ihᵀ + b_ih and h_proj = h W_hhᵀ + b_hh
// (each [1, gates * hidden]): updates h (and, for an LSTM, c), each [1, hidden].
void cell_update(Cell cell, const RowVector& x_proj, const RowVector& h_proj, RowVector& h, RowVector& c,
                 CellRecord* record = nullptr);

// One PyTorch RNN cell (torch.nn.GRUCell / LSTMCell layout), gates stacked in PyTorch's order:
// GRU r, z, n; LSTM i, f, g, o.
struct CellWeights {
  Matrix weight_ih;          // [gates * hidden, in]
  Matrix weight_hh;          // [gates * hidden, hidden]
  RowVector bias_ih, bias_hh;  // [gates * hidden]

  // One step from x_proj = x W_ihᵀ + b_ih ([1, gates * hidden], precomputed so the encoder
  // projects a whole sentence at once): updates h (and, for an LSTM, c), each [1, hidden].
  void step(Cell cell, const RowVector& x_proj, RowVector& h, RowVector& c, CellRecord* record = nullptr) const;
};

// The decoder's stacked cells on input x [1, in]: layer l reads the layer below's new state (layer
// 0 reads x) and updates h[l] (and, for an LSTM, c[l]) in place; records[l] keeps its step when given.
void decoder_layers(Cell cell, const std::vector<CellWeights>& layers, const RowVector& x, std::vector<RowVector>& h,
                    std::vector<RowVector>& c, std::vector<CellRecord>* records = nullptr);

// One direction of one encoder layer over a sentence: the cell from zeros over x [S, in], forwards
// (direction 0) or backwards (1), its states into `out` [S, hidden] (row j: the state after
// reading position j). records[k] (when given) keeps the k-th step (direction 1: position S - 1 - k).
void encode_direction(Cell cell, const CellWeights& weights, const Matrix& x, int direction, Eigen::Ref<Matrix> out,
                      std::vector<CellRecord>* records = nullptr);

// The attention's parameters (models/FORMAT.md): those of the config's score and window, the
// others empty. The loaded model holds them, and so does the training pass (train::RnnParams).
struct AttentionWeights {
  Matrix query_proj;     // additive W_q [A, H]
  Matrix key_proj;       // additive W_k [A, d_mem]; general W_a [H, d_mem]
  Matrix v;              // additive v [1, A]
  Matrix location_proj;  // location W_a [max_positions, H]: a row per source position
  Matrix position_proj;  // local-p W_p [H, H]
  Matrix position_v;     // local-p v_p [1, H]
};

struct Weights {
  // Held once in the form the load keeps (WeightReader::embedding_table): plain binary32, or
  // packed binary16 with the binary16 option. The output layer is never tied to them.
  ops::WeightMatrix src_embed;      // [V_src, E]
  ops::WeightMatrix tgt_embed_;     // [V_tgt, E]; empty when shared_embeddings
  // encoder[layer * directions + direction]; direction 1 reads the sentence backwards.
  std::vector<CellWeights> encoder;
  Linear bridge;                    // [H, d_mem]: s_0 = tanh(bridge(final))
  std::vector<CellWeights> decoder;  // one per decoder layer
  AttentionWeights attention;       // all empty for Style::None
  Matrix combine;                   // Luong W_c [H, d_mem + H]
  Linear output;                    // [V_tgt, H] (Luong) or [V_tgt, H + d_mem]
  bool shared_embeddings = false;

  const ops::WeightMatrix& tgt_embed() const { return shared_embeddings ? src_embed : tgt_embed_; }
};

// What start() derives from the encoder states once per sentence; shared by every hypothesis.
struct Memory {
  Matrix states;    // H [S, d_mem]
  Matrix keys;      // H W_kᵀ [S, A] (additive) or H W_aᵀ [S, H] (general); empty otherwise
  RowVector final;  // [d_mem]: forward state at the last position; backward state at the first
  RowVector mean;   // [d_mem]: the mean encoder state ("no attention")
};

// The memory of encoder states `states` [S, d_mem] (keys projected when the score has them).
Memory memory_of(const Config& config, const AttentionWeights& weights, Matrix states);

// What one attention computed, kept when asked for the backward of its score and softmax.
struct AttendRecord {
  RowVector q;            // [H] the query
  RowVector a;            // [S] the weights
  Matrix additive;        // [S, A] additive: tanh(W_q q + W_k h_j), row j
  RowVector window;       // [S] local-p: the softmax over the window (0 outside), before the Gaussian
  RowVector gauss;        // [S] local-p: exp(-(j - p)² / (2σ²))
  RowVector u;            // [H] local-p: tanh(W_p q)
  float p = 0, gate = 0;  // local-p: the centre and sigmoid(v_p · u)
};

// The attention weights over the memory for query state `q` [1, H]: score(q, H) by the config's
// Score (rnn.h's header), then the softmax, or Luong's local-p window. The energies before the
// softmax (and, for local-p, the window's centre) go into `vectors` when given.
RowVector attend(const Config& config, const AttentionWeights& weights, const Memory& memory, const RowVector& q,
                 NamedVectors* vectors, AttendRecord* record = nullptr);

// s_0 = tanh(W_b final + b_b): every decoder layer's first state.
RowVector bridge_state(const Linear& bridge, const RowVector& final);
// Luong's attentional state h~ = tanh(W_c [c; s]).
RowVector attentional_state(const Matrix& combine, const RowVector& context, const RowVector& s);
// [a; b]
RowVector concat(const RowVector& a, const RowVector& b);

// The decoder's recurrent state after one position.
struct Snapshot {
  std::vector<RowVector> h;  // [layer] [1, H]
  std::vector<RowVector> c;  // [layer] [1, H]; LSTM only
  RowVector feed;            // h~ [1, H] of the last step (Luong input feeding; zeros at start)
};

// What one decoder step computed, kept when asked for its backward (families/rnn/backward.cpp).
struct StepRecord {
  std::vector<RowVector> in;       // [layer]: its input; layer 0: [e; c] (Bahdanau, none), [e; h~_{t-1}] or e (Luong)
  std::vector<CellRecord> cells;   // [layer]
  AttendRecord attend;
  RowVector combine_in;            // Luong: [c; s_t]
};

// The context c = a H of attention weights `a` [1, S] (null: no attention, the encoder's final
// state), or what the caller puts in its place (decoding's interventions, which may replace `a`).
using ContextOf = std::function<RowVector(RowVector* a)>;

// One decoder step's forward, the one composition that decoding (Rnn::step) and the training
// pass (backward.cpp) both run: target embedding `e` [1, E] and the state before the step, which
// it updates in place (h, c; feed, Luong's h~), to the output layer's input: [s_t; c], or h~_t.
// The output layer is the caller's: decoding's kernel, the pass's product for its weights'
// form. The attention weights the context read go into `attention` (empty without attention);
// `vectors` gets the step's named vectors, `record` what the backward reads.
RowVector decoder_step(const Config& config, const Weights& weights, const Memory& memory, const RowVector& e,
                       Snapshot& state, const ContextOf& context, NamedVectors* vectors, RowVector* attention,
                       StepRecord* record = nullptr);

class State : public DecoderState {
 public:
  std::shared_ptr<const Memory> memory;
  std::vector<Snapshot> history;  // [0]: the start; [t]: after t fed tokens (for truncate)

  std::unique_ptr<DecoderState> clone() const override { return std::make_unique<State>(*this); }
  int length() const override { return static_cast<int>(history.size()) - 1; }
  void truncate(int length) override {
    if (length >= 0 && length < this->length()) history.resize(static_cast<std::size_t>(length) + 1);
  }
};

// Rows of the site table: the one attention of the decoder over the encoder states.
enum Site : int { kAttention = 0 };

class Rnn : public ModelFamily, public Decoder {
 public:
  Rnn(const ModelConfig& model_config, const Config& config, Weights weights);

  const SiteTable& sites() const override { return sites_; }
  Matrix encode(const std::vector<int>& source_ids, const Capture& capture, EncoderTrace* trace,
                const Interventions& interventions) const override;
  const Decoder* decoder() const override { return this; }
  const ops::WeightMatrix& token_embeddings(Side side) const override {
    return side == Side::Source ? weights_.src_embed : weights_.tgt_embed();
  }
  const Matrix& positional_encoding() const override { return none_; }
  // Its attention is not scaled dot-product multi-head attention: analyses that need one refuse.
  const MultiHeadAttention* attention_layer(int, int) const override { return nullptr; }
  // Refuses what an RNN has nothing to apply to: head masks, self-attention, FFN and LayerNorm skips.
  const InterventionSupport& intervention_support() const override;
  // Its cell, stacks and attention style and score (describe.cpp).
  ArchitectureDescription describe(const Model& model) const override;

  std::unique_ptr<DecoderState> start(const Matrix& memory) const override;
  Matrix step(const std::vector<DecoderState*>& states, const std::vector<int>& tokens, const Capture& capture,
              const std::vector<StepTrace*>& traces, const Interventions& interventions) const override;

  const Config& config() const { return config_; }
  const Weights& weights() const { return weights_; }

 private:
  // c = a H (the encoder's final state when `a` is null: no attention), or what an intervention
  // puts in its place; `a` is replaced by an attention override first.
  RowVector context(const Memory& memory, RowVector* a, int position, const Interventions& iv) const;
  RowVector step_one(State& state, int token, NamedVectors* vectors, Matrix* attention,
                     const Interventions& interventions) const;

  ModelConfig model_config_;
  Config config_;
  Weights weights_;
  SiteTable sites_;
  Matrix none_;
};

// The encoder's final state, [1, d_mem]: the top layer's forward state at the last position and
// (bidirectional) its backward state at the first position, from the encoder states [S, d_mem].
RowVector final_state(const Config& config, const Matrix& states);

// Reads an RNN's tensors (models/FORMAT.md); registered in src/families/registry.cpp.
std::unique_ptr<ModelFamily> load(const Model& model, WeightReader& weights, const Model::LoadOptions& options);

}  // namespace attnscope::rnn
