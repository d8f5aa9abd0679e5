#include "decoding/greedy.h"

#include <algorithm>

#include "model/decoder.h"
#include "model/encoder.h"

namespace attnscope {

int argmax(const float* values, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (values[i] > values[best]) best = i;
  return best;
}

Translation translate_greedy(const Model& model, const std::string& text, const GreedyOptions& options) {
  return translate_greedy(model, prepare_source(model, text), options);
}

Translation translate_greedy(const Model& model, Source source, const GreedyOptions& options) {
  const ModelConfig& c = model.config;
  Translation out;
  out.source = std::move(source);

  const Matrix memory = encode(model, out.source.ids, options.capture, &out.encoder);
  DecoderState state = start_decoder(model, memory);

  // The target, <s> included, must fit in max_positions.
  int limit = c.max_positions - 1;
  if (options.max_steps > 0) limit = std::min(limit, options.max_steps);

  int token = c.special.bos;
  while (static_cast<int>(out.output_ids.size()) < limit) {
    GreedyStep step;
    step.input_id = token;
    const Matrix logits = decode_step(model, state, token, options.capture, &step.trace);
    step.output_id = argmax(logits.data(), static_cast<int>(logits.cols()));
    if (options.capture.logits) {
      step.logits.assign(logits.data(), logits.data() + logits.size());
      const Matrix log_probs = ops::log_softmax_rows(logits);
      step.log_probs.assign(log_probs.data(), log_probs.data() + log_probs.size());
    }
    token = step.output_id;
    out.output_ids.push_back(token);
    out.steps.push_back(std::move(step));
    if (token == c.special.eos) {
      out.finished = true;
      break;
    }
  }
  out.hit_max_length = !out.finished;
  out.text = decode(*model.tokenizer, model.tgt_vocab, out.output_ids,
                    {c.special.bos, c.special.eos, c.special.pad});
  return out;
}

}  // namespace attnscope
