#pragma once
// The gated feed-forward network of LLaMA (Shazeer 2020, "GLU Variants Improve Transformer"):
// FFN(x) = down(act(gate(x)) ∘ up(x)), SwiGLU with act = SiLU (HF's LlamaMLP).
#include "layers/basic.h"
#include "layers/probe.h"

namespace attnscope {

struct GatedFeedForward {
  Linear gate, up, down;  // gate, up: [d_ff, d]; down: [d, d_ff]
  Activation activation = Activation::Swish;

  bool empty() const { return gate.weight.empty(); }

  Matrix operator()(const ops::MatrixRef& x, const Probe& probe) const {
    Matrix hidden = gate(x);
    ops::activate(hidden, activation);
    hidden.array() *= up(x).array();
    probe.record("ffn_hidden", hidden);  // the input of down, as FeedForward's hidden is fc2's
    return down(hidden);
  }
};

}  // namespace attnscope
