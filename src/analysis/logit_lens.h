#pragma once
// The logit lens (nostalgebraist 2020): at each step of a session, what the model would predict
// if the residual stream after decoder layer l went straight to its readout (the final norm
// where the model has one, the output projection and bias; Decoder::readout). The last layer's
// row is the step's own prediction. Probabilities are the model's own, before any decoding rule.
#include <string>
#include <vector>

#include "decoding/session.h"

namespace attnscope {

struct LensToken {
  int id = 0;
  std::string piece;  // the target vocabulary's piece
  float prob = 0.0f;
};

// One decoder layer's reading at one step.
struct LensLayer {
  std::vector<LensToken> top;  // the k most probable tokens, most probable first (lower id on ties)
  float chosen_prob = 0.0f;    // p(the step's chosen token)
  int chosen_rank = 0;         // 1 + the tokens strictly more probable than it
};

struct LensStep {
  int token = 0;  // the token chosen at this step
  std::string piece;
  std::vector<LensLayer> layers;  // per decoder layer, first to last
};

struct LogitLens {
  int layers = 0;
  std::vector<LensStep> steps;
};

// The lens of every step along the session's leading hypothesis (the best finished one once
// the session is done, else the first live one). Reads the residuals the steps captured
// (capture.vectors) where they are there; otherwise replays that hypothesis' tokens through the
// decoder with vectors captured, so a session's plain steps record nothing for it. Throws
// InputError for a model without a lens (Decoder::lens_layers() is 0) or top_k < 1.
LogitLens logit_lens(const DecodeSession& session, int top_k);

// The same along `tokens`, one per step (at most the steps taken).
LogitLens logit_lens(const DecodeSession& session, int top_k, const std::vector<int>& tokens);

}  // namespace attnscope
