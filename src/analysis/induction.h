#pragma once
// Induction heads (Olsson et al. 2022, "In-context learning and induction heads"; Elhage et al.
// 2021, "A Mathematical Framework for Transformer Circuits"): on sequences of random tokens
// repeated twice, a head of a later layer attends from a token of the repeated half to the token
// that followed its earlier occurrence (prefix matching) and raises that token's logit (copying).
//
//   prefix matching   per head, the mean over every query q of the repeated half of the attention
//                     from q to the keys k whose previous token (k - 1) is q's token: 1 for a head
//                     that attends only there, about 1/q for a uniform one.
//   previous token    per head, the mean over every query q >= 1 of the attention from q to q - 1:
//                     the first-layer half of the circuit, whose output lets a later head's keys
//                     say which token came before them (1 for a head that attends only there).
//   copying           Olsson et al.'s eigenvalue score of the head's full OV circuit
//                     M = W_E W_V^hᵀ W_O^hᵀ W_Uᵀ (row vectors: M[a][b] is the logit the head adds to
//                     token b when it attends to token a alone), Σ Re(λ) / Σ |λ| over M's
//                     eigenvalues: 1 for a circuit that copies every token (a positive multiple of
//                     the identity), −1 for one that suppresses them, 0 for a rotation. Over the
//                     given tokens only (the symbols of the data, not <pad> or </s>). LayerNorm's
//                     gains, the biases and the embedding scale are left out: the first two are not
//                     part of the OV circuit, and a positive scale does not change the ratio.
//   losses            the mean cross-entropy of the next token over the first half (its first
//                     token, predicted from <bos> alone, left out) and over the repeated half: an
//                     induction head lets the model predict the repeated half from the first.
//
// A language model's input is read through the seam (model/family.h: a family whose input is a
// prompt, its self-attention site, its attention_layer and output_embeddings); the analysis never
// names a family.
#include <vector>

#include "core/tensor.h"
#include "model/model.h"

namespace attnscope {

struct InductionScores {
  int layers = 0, heads = 0;
  std::vector<std::vector<double>> prefix_matching;  // [layer][head], the mean over the probes
  std::vector<std::vector<double>> previous_token;   // [layer][head], the mean over the probes
  std::vector<std::vector<double>> copying;          // [layer][head]
  double loss_first_half = 0, loss_repeated_half = 0;  // nats per token, over every probe
  // The first probe's context: <bos> then its tokens, and every head's attention over it,
  // [layer][head][T][T] (row q: query position q; zero above the diagonal).
  std::vector<int> context;
  Tensor attention;
};

// One head's prefix-matching score on its causal map [T, T] over `context` (<bos> first): the
// mean over the queries q >= `first_query` of Σ map(q, k) over 1 <= k <= q with
// context[k - 1] == context[q]. Throws InputError on a map that does not fit the context.
double prefix_matching_score(const Matrix& head_map, const std::vector<int>& context, int first_query);

// One head's previous-token score on its causal map [T, T] (T >= 2): the mean over the queries
// q >= 1 of map(q, q - 1). Throws InputError on a map that is not square or has under 2 rows.
double previous_token_score(const Matrix& head_map);

// Σ Re(λ) / Σ |λ| over the eigenvalues λ of the square `circuit` (0 when every λ is 0).
double eigenvalue_copying_score(const Matrix& circuit);

// The scores of every head of `model`'s self-attention on `probes`: each a sequence of token ids
// whose second half repeats its first (without <bos>); `tokens`: the ids the copying score runs
// over. Throws InputError for a model that does not read a prompt (a translation or encoder-only
// model), a probe that is not a repeat or does not fit the context, or a token outside the
// vocabulary.
InductionScores induction_scores(const Model& model, const std::vector<std::vector<int>>& probes,
                                 const std::vector<int>& tokens);

}  // namespace attnscope
