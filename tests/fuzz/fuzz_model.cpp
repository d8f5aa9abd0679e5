// libFuzzer target: any bytes as a model file (Model::load_bytes, i.e. the safetensors container,
// the metadata, the config, the tokenizer and every tensor check).
//
// Allowed outcome for a bad file: a ModelFileError. Anything else that escapes (another
// exception type, a sanitizer report, a FUZZ_CHECK) is a bug. A file that does load must be
// usable: its tokenizer runs, and a short beam search with everything captured steps, goes
// back and is forced without error, unless a step overflows float32 (an Error).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "decoding/session.h"
#include "families/transformer/transformer.h"
#include "fuzz_check.h"
#include "model/model.h"
#include "text/tokenizer.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::shared_ptr<const Model> model;
  try {
    model = Model::load_bytes(data, size);
  } catch (const ModelFileError& e) {
    FUZZ_CHECK(std::string(e.what()).rfind("invalid model file: ", 0) == 0);
    return 0;
  }
  const Model& m = *model;
  FUZZ_CHECK(m.src_vocab.size() > 0 && m.tgt_vocab.size() > 0);
  const transformer::Config& c = transformer::of(m).config();
  const transformer::Weights& w = transformer::of(m).weights();
  FUZZ_CHECK(static_cast<int>(w.encoder_layers.size()) == c.n_encoder_layers);
  FUZZ_CHECK(static_cast<int>(w.decoder_layers.size()) == c.n_decoder_layers);
  FUZZ_CHECK(w.encoder_positions.rows() == m.config.max_positions && w.encoder_positions.cols() == c.d_model);
  for (const AttentionSiteInfo& site : m.sites()) FUZZ_CHECK(site.layers > 0 && site.heads == c.n_heads);

  // The model's own tokenizer on its vocabulary and on text it has never seen.
  std::string text;
  for (int i = 0; i < std::min(m.src_vocab.size(), 6); ++i) text += m.src_vocab.token(i) + " ";
  text += "Zzyzx GRÜẞE 🙂 \xff\xc0\xaf";
  const Encoded e = encode(*m.tokenizer, m.src_vocab, text, m.config.special.unk);
  FUZZ_CHECK(e.ids.size() == e.pieces.size());
  for (int id : e.ids) FUZZ_CHECK(id >= 0 && id < m.src_vocab.size());

  // A short beam search on a source made of the first ids, with every capture on.
  Source source;
  const int length = std::min(3, m.config.max_positions);
  for (int i = 0; i < length; ++i) {
    source.ids.push_back(i % m.src_vocab.size());
    source.pieces.push_back(m.src_vocab.token(source.ids.back()));
  }
  DecodeOptions options;
  options.strategy = Strategy::Beam;
  options.beam_size = 2;
  options.max_length = 3;
  options.capture.attention = options.capture.vectors = options.capture.logits = true;
  DecodeSession session(model, source, options);
  try {
    session.step();
    FUZZ_CHECK(session.steps_taken() == 1);
    if (!session.done()) {
      session.back();
      FUZZ_CHECK(session.steps_taken() == 0);
      session.force(m.tgt_vocab.size() - 1);
    }
    if (!session.done()) session.run();
  } catch (const Error& e) {
    // Finite weights may still overflow float32 at any step (forcing a token can lead there):
    // the one error a loaded model may give, and the step that failed is not taken.
    FUZZ_CHECK(std::string(e.what()).rfind("the model's computation overflowed at step ", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(session.done());
  for (const FinishedHypothesis& h : session.nbest()) session.detokenize(h.tokens);
  return 0;
}
