#pragma once
// The RNN family's training pass: a teacher-forced forward over a batch of sentence pairs that
// keeps what backward needs, label-smoothed cross-entropy, and backpropagation through time:
// output layer, Luong's combine, the attention (every score, local-p), the stacked decoder cells,
// the bridge, and the (bidirectional, stacked) encoder, down to the embeddings.
//
// The forward is the family's own (src/families/rnn/: its cells, scores, softmax, bridge and
// combine, asked to keep what backward needs); this pass adds only the backward. The reference is
// models/reference/attnscope_ref/rnn.py, stepped by models/goldens/make_rnn_train_goldens.py. Sentences run one
// after another (as the reference steps them): the sums equal a padded batch with masks.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/random.h"
#include "families/rnn/train_params.h"
#include "model/differentiable.h"
#include "model/example.h"
#include "model/model.h"

namespace attnscope::train {

// Forward and backward of loss_sum / tokens (loss.h's LossResult, as for the transformer); the
// gradients are added into `grads` (same layout as `params`; zero it first). The RNN trains
// without dropout (its reference has none): options.dropout > 0 with a generator is an InputError.
LossResult loss_and_gradients(const RnnParams& params, const std::vector<Example>& batch,
                              const LossOptions& options, Random* random, RnnParams& grads);

// Throws the InputError above when `options` ask for dropout (a trainer checks before its first epoch).
void check_rnn_loss_options(const LossOptions& options);

// The RNN's Differentiable (model/differentiable.h): the same forward and backward from given source
// and target embeddings (the RNN has no embedding scale), without parameter gradients, on the
// loaded model's own weights (its bridge, output layer and embeddings in whatever form the load
// keeps them), which the pass keeps alive. InputError for a model of another family.
std::unique_ptr<Differentiable> rnn_differentiable(std::shared_ptr<const Model> model);

}  // namespace attnscope::train
