#pragma once
// A step-by-step decode of one source sentence: encode once, then step(), back(), force()
// and run() with greedy, beam or sampling choices (rules in README.md in this folder).
// Everything a page draws about a step is kept in history(): for each hypothesis that was
// extended, its logits, top alternatives and attention; and the beam tree in tree().
#include <memory>
#include <string>
#include <vector>

#include "decoding/options.h"
#include "decoding/sampler.h"
#include "decoding/source.h"
#include "model/seq2seq.h"

namespace attnscope {

struct Hypothesis {
  std::vector<int> tokens;  // generated ids, no <s>
  double score = 0.0;       // sum of log-probabilities
  int node = 0;             // its node in the beam tree
};

struct FinishedHypothesis {
  std::vector<int> tokens;  // ends with </s> when `finished`
  double score = 0.0;
  double normalized_score = 0.0;  // with the length penalty
  bool finished = true;           // false: cut at the length limit
  int node = 0;
};

struct Alternative {
  int token;
  float logit, log_prob, prob;
};

// One hypothesis extended at one step: what the model said about its next token.
struct Expansion {
  int hypothesis = 0;        // index in the beam before the step
  int node = 0;              // that hypothesis' node in the beam tree
  std::vector<int> prefix;   // its tokens before the step
  double score = 0.0;        // its score before the step
  std::vector<Alternative> top;          // the most probable next tokens
  std::vector<float> logits, log_probs;  // when capture.logits
  StepTrace trace;                       // when capture.attention / capture.vectors (sites: model().sites())
};

struct StepRecord {
  int step = 0;  // position generated (0 = first token after <s>)
  std::vector<Expansion> expansions;
  bool forced = false;
  int forced_token = -1;
  float forced_log_prob = 0.0f;  // log p(forced token) under the model, unaltered
};

enum class NodeStatus { Live, Finished, Pruned, Cut };
const char* to_string(NodeStatus s);

// The beam tree: node 0 is <s>; every candidate the search looked at gets a node.
struct BeamNode {
  int parent = -1;
  int step = -1;
  int token = -1;
  float log_prob = 0.0f;
  double score = 0.0;  // cumulative
  NodeStatus status = NodeStatus::Live;
};

class DecodeSession {
 public:
  DecodeSession(std::shared_ptr<const Model> model, const std::string& text, DecodeOptions options);
  DecodeSession(std::shared_ptr<const Model> model, Source source, DecodeOptions options);

  // Advances one token for every live hypothesis. Throws Error once done().
  const StepRecord& step();
  // Steps until done().
  void run();
  // Undoes the last step (or force). Throws Error at step 0.
  void back();
  // Chooses `token` as the next token of live hypothesis `hypothesis` (beam: the others are
  // dropped and the beam widens again from it). Throws IndexError for a bad token or index.
  const StepRecord& force(int token, int hypothesis = 0);

  bool done() const { return done_; }
  bool hit_max_length() const { return hit_max_length_; }
  int steps_taken() const { return static_cast<int>(history_.size()); }
  int max_length() const { return limit_; }

  const Model& model() const { return *model_; }
  const DecodeOptions& options() const { return options_; }
  const Source& source() const { return source_; }
  const EncoderTrace& encoder_trace() const { return encoder_trace_; }
  std::vector<Hypothesis> live() const;
  const std::vector<FinishedHypothesis>& finished() const { return finished_; }
  const std::vector<StepRecord>& history() const { return history_; }
  const std::vector<BeamNode>& tree() const { return nodes_; }

  // The one bounds check for "step s, hypothesis h": history()[step], and the expansion of the
  // hypothesis extended as `hypothesis` there. Throw IndexError saying what is out of range.
  const StepRecord& record(int step) const;
  const Expansion& expansion(int step, int hypothesis) const;
  // The one beam-lineage walk: the expansions that built that hypothesis, one per step
  // 0..step (its ancestors in the beam tree, each found in its step's history).
  std::vector<const Expansion*> lineage(int step, int hypothesis) const;

  // Finished (and, after a length cut, cut) hypotheses, best first, at most options.nbest.
  std::vector<FinishedHypothesis> nbest() const;
  // The text of some target ids, specials removed.
  std::string detokenize(const std::vector<int>& ids) const;

 private:
  struct Live {
    Hypothesis hyp;
    std::unique_ptr<DecoderState> state;  // fed <s> and all tokens but the last
  };
  struct Undo {
    std::vector<Hypothesis> beam;
    std::vector<FinishedHypothesis> finished;
    std::size_t nodes = 0;
    std::uint64_t draws = 0;
  };

  struct Scores {
    Matrix logits;             // [1, V], as the model computed them
    ops::LogSoftmax norm;      // log p(t) = norm.log_prob(logits(0, t))
    Matrix log_probs;          // [1, V], written out only for beam search and capture.logits
    bool eos_banned = false;   // the hypothesis is shorter than min_length
    float log_prob(int t) const { return norm.log_prob(logits(0, t)); }
  };
  void check_can_advance() const;
  // Expands every live hypothesis (or only `only`), then records the undo point; on an
  // exception the caches are restored and nothing is recorded.
  void expand_all(StepRecord& record, std::vector<Scores>& scores, int only);
  // Describes hypothesis `index` (`live`) extended by a step that gave it `logits`, [1, V].
  Expansion expand(const Live& live, int index, const Matrix& logits, Scores& scores, StepTrace&& trace);
  void choose_greedy_or_sample(StepRecord& record, const std::vector<Scores>& scores);
  void choose_beam(StepRecord& record, const std::vector<Scores>& scores);
  // Moves `hyp` (with its state) into the next beam, or into finished_ if it ended.
  void admit(std::vector<Live>& next, Live&& child);
  void finish_step(std::vector<Live>&& next);
  std::unique_ptr<DecoderState> replay(const std::vector<int>& tokens) const;
  int add_node(int parent, int step, int token, float log_prob, double score, NodeStatus status);

  std::shared_ptr<const Model> model_;
  DecodeOptions options_;
  Source source_;
  EncoderTrace encoder_trace_;
  Matrix memory_;
  int limit_ = 0;

  std::vector<Live> beam_;
  std::vector<Live> retired_;  // hypotheses that ended in the last step, kept so back() can truncate
  std::vector<FinishedHypothesis> finished_;
  std::vector<BeamNode> nodes_;
  std::vector<StepRecord> history_;
  std::vector<Undo> undo_;
  Sampler sampler_;
  bool done_ = false;
  bool hit_max_length_ = false;
};

}  // namespace attnscope
