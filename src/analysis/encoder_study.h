#pragma once
// The head study of an encoder-only model (model/encoder_only.h), after the seed's three questions:
//   head_patterns      Kovaleva et al. (2019)'s pattern class of every layer x head
//                      (analysis/attention_maps.h attention_pattern);
//   attention_shares   where attention goes, per layer (Clark et al. 2019): to [CLS], to [SEP],
//                      to punctuation, to the previous and the next token, from the raw weights
//                      alpha and norm-weighted (Kobayashi et al. 2020);
//   head_ablation      what switching one head off does to masked-token accuracy (Michel et al.
//                      2019's question, asked of an MLM).
// The PyTorch reference of these definitions is models/goldens/make_bert_study_goldens.py.
#include <functional>
#include <string>
#include <vector>

#include "model/encoder_only.h"
#include "model/model.h"

namespace attnscope {

// Shares of one attention distribution (or their mean over rows/heads), each in [0, 1]. The
// categories overlap (the token after [CLS] has it as its previous token), so they need not sum
// to 1.
struct AttentionShares {
  double cls = 0;    // on [CLS]
  double sep = 0;    // on every [SEP]
  double punct = 0;  // on pieces made only of punctuation (BERT's rule, text/wordpiece_tokenizer.h)
  double prev = 0;   // on position i - 1 (0 for the first query row)
  double next = 0;   // on position i + 1 (0 for the last query row)
};

struct ShareStudy {
  // Raw: alpha_ij. Norm-weighted: alpha_ij ||f_h(x_j)||, f_h(x_j) head h's value vector of token j
  // after the output projection ("layers.<l>.transformed_values"), each query row renormalised
  // to sum to 1. Every share is the mean over query rows (and over heads for the per-layer ones).
  std::vector<AttentionShares> raw, norm;                     // [layer]
  std::vector<std::vector<AttentionShares>> raw_heads, norm_heads;  // [layer][head]
};

// Encodes `text` capturing what the study needs (attention and the named vectors), with the
// model broken as `interventions` say (model/interventions.h).
Encoding encode_for_study(const Model& model, const std::string& text, const Interventions& interventions = {});

// The pattern class of every layer x head of the encoding's self-attention: [layer][head], each
// one of "vertical", "diagonal", "vertical+diagonal", "block", "heterogeneous".
std::vector<std::vector<std::string>> head_patterns(const Encoding& encoding);

// Throws InputError when the encoding lacks its attention or transformed value vectors.
ShareStudy attention_shares(const Model& model, const Encoding& encoding);

struct HeadAblation {
  double base_accuracy = 0;  // top-1 == original piece, nothing switched off
  int positions = 0;         // masked positions over all sentences
  int base_correct = 0;
  std::vector<std::vector<int>> correct;       // [layer][head]: with that head switched off
  std::vector<std::vector<double>> delta;      // [layer][head]: accuracy(ablated) - base_accuracy
};

// Masked-token accuracy on `sentences`: every non-special piece masked in turn ([MASK] replaces
// it), counted correct when the MLM's top-1 piece there is the original (ties: the lower id);
// then the same with each layer x head masked (its output zeroed, model/interventions.h).
// `progress(done, total)` is called after each head (and once before the first). Throws
// InputError for an empty set, a sentence with no pieces or too many, or no piece to mask.
HeadAblation head_ablation(const Model& model, const std::vector<std::string>& sentences,
                           const std::function<void(int, int)>& progress = {});

}  // namespace attnscope
