// The Embind registration of the engine's JavaScript interface, and nothing else: the names
// web/attnscope.js calls, bound to the handles and functions of the files beside this one
// (model_handle, staged_file, session_handle, trainer_handle, corpora, heap; conversions.h says how values
// cross). No math lives in the bindings.
#include <emscripten/bind.h>

#include "corpora.h"
#include "heap.h"
#include "model_handle.h"
#include "session_handle.h"
#include "staged_file.h"
#include "trainer_handle.h"

using namespace attnscope::bindings;

EMSCRIPTEN_BINDINGS(attnscope) {
  using emscripten::class_;
  emscripten::function("heapInUse", &heap_in_use);
  class_<ModelHandle>("ModelHandle")
      .constructor<>()
      .function("load", &ModelHandle::load)
      .function("loadStaged", &ModelHandle::load_staged)
      .function("info", &ModelHandle::info)
      .function("vocab", &ModelHandle::vocab)
      .function("tokenize", &ModelHandle::tokenize)
      .function("encodeText", &ModelHandle::encode_text)
      .function("fillMask", &ModelHandle::fill_mask)
      .function("maskAttribution", &ModelHandle::mask_attribution)
      .function("headStudy", &ModelHandle::head_study)
      .function("headAblation", &ModelHandle::head_ablation)
      .function("textAnalysis", &ModelHandle::text_analysis)
      .function("textAttentionLogits", &ModelHandle::text_attention_logits)
      .function("score", &ModelHandle::score)
      .function("headSweep", &ModelHandle::head_sweep)
      .function("bleuByLength", &ModelHandle::bleu_by_length)
      .function("embeddingPca", &ModelHandle::embedding_pca)
      .function("positionalEncoding", &ModelHandle::positional_encoding)
      .function("embeddingCosine", &ModelHandle::embedding_cosine)
      .function("inductionScores", &ModelHandle::induction_scores);
  emscripten::function("parsePairs", &parse_pairs);
  emscripten::function("repeatedSequences", &repeated_sequences);
  emscripten::function("successorWalks", &successor_walks);
  emscripten::function("bleuByLength", &bleu_by_length_of);
  class_<StagedFile>("StagedFile")
      .constructor<double>()
      .function("append", &StagedFile::append)
      .function("received", &StagedFile::received);
  emscripten::function("trainingPresets", &training_presets);
  class_<TrainerHandle>("TrainerHandle")
      .constructor<>()
      .function("create", &TrainerHandle::create)
      .function("resume", &TrainerHandle::resume)
      .function("epoch", &TrainerHandle::epoch)
      .function("epochsDone", &TrainerHandle::epochs_done)
      .function("setPairs", &TrainerHandle::set_pairs)
      .function("exportBytes", &TrainerHandle::export_bytes);
  class_<SessionHandle>("SessionHandle")
      .constructor<>()
      .function("start", &SessionHandle::start)
      .function("step", &SessionHandle::step)
      .function("force", &SessionHandle::force)
      .function("run", &SessionHandle::run)
      .function("back", &SessionHandle::back)
      .function("state", &SessionHandle::state)
      .function("source", &SessionHandle::source)
      .function("history", &SessionHandle::history)
      .function("attention", &SessionHandle::attention)
      .function("logits", &SessionHandle::logits)
      .function("tree", &SessionHandle::tree)
      .function("rollout", &SessionHandle::rollout)
      .function("attentionLogits", &SessionHandle::attention_logits)
      .function("valueWeighted", &SessionHandle::value_weighted)
      .function("encoderPatterns", &SessionHandle::encoder_patterns)
      .function("promptRollout", &SessionHandle::prompt_rollout)
      .function("promptPatterns", &SessionHandle::prompt_patterns)
      .function("logitLens", &SessionHandle::logit_lens)
      .function("attribution", &SessionHandle::attribution)
      .function("sentenceAttribution", &SessionHandle::sentence_attribution)
      .function("attributionCost", &SessionHandle::attribution_cost)
      .function("sentenceAttributionCost", &SessionHandle::sentence_attribution_cost)
      .function("detokenize", &SessionHandle::detokenize);
}
