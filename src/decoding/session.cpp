#include "decoding/session.h"

#include <algorithm>
#include <cmath>
#include <limits>


namespace attnscope {
namespace {


// Indices of the `k` largest values, largest first, lower index first on ties. One pass that
// keeps the best k so far in order, instead of sorting all V indices: over a vocabulary,
// nearly every value is rejected by one comparison with the k-th best.
std::vector<int> top_indices(const float* values, int n, int k) {
  k = std::min(k, n);
  std::vector<int> top;
  if (k <= 0) return top;
  top.reserve(k + 1);
  for (int i = 0; i < n; ++i) {
    if (static_cast<int>(top.size()) == k && !(values[i] > values[top.back()])) continue;
    // After every kept value >= values[i]: those have lower indices, so ties keep index order.
    const auto at = std::upper_bound(top.begin(), top.end(), i, [&](int a, int b) { return values[a] > values[b]; });
    top.insert(at, i);
    if (static_cast<int>(top.size()) > k) top.pop_back();
  }
  return top;
}

}  // namespace

const char* to_string(NodeStatus s) {
  switch (s) {
    case NodeStatus::Live: return "live";
    case NodeStatus::Finished: return "finished";
    case NodeStatus::Pruned: return "pruned";
    case NodeStatus::Cut: return "cut";
  }
  return "?";
}

DecodeSession::DecodeSession(std::shared_ptr<const Model> model, const std::string& text, DecodeOptions options)
    // `options` copied, not moved: the arguments' order of evaluation is unspecified.
    : DecodeSession(model, prepare_source(*model, text, options.prepend_bos), options) {}

DecodeSession::DecodeSession(std::shared_ptr<const Model> model, Source source, DecodeOptions options)
    : model_(std::move(model)), options_(std::move(options)), source_(std::move(source)) {
  options_.validate();
  if (options_.strategy != Strategy::Beam) options_.beam_size = options_.nbest = 1;
  const ModelConfig& c = model_->config;

  limit_ = model_->family->generation_room(c.max_positions, static_cast<int>(source_.ids.size()));
  if (options_.max_length > 0) limit_ = std::min(limit_, options_.max_length);
  if (options_.max_length_a > 0.0) {
    const double relative = std::floor(options_.max_length_a * source_.ids.size() + options_.max_length_b);
    limit_ = static_cast<int>(std::max(1.0, std::min<double>(limit_, relative)));  // in int's range
  }
  limit_ = std::max(limit_, 1);

  for (int id : options_.prefix) model_->tgt_vocab.token(id);  // throws IndexError for a bad id
  if (static_cast<int>(options_.prefix.size()) > limit_)
    throw InputError("the forced prefix has " + std::to_string(options_.prefix.size()) +
                     " tokens but at most " + std::to_string(limit_) + " can be generated");

  model_->decoder();  // throws for a family without one
  const SiteTable& sites = model_->sites();
  options_.interventions = options_.interventions.resolved(sites);
  for (const AttentionOverride& o : options_.interventions.attention) {
    if (o.pattern != HeadEdit::Pattern::Custom) continue;
    // A custom row has one weight per source position, so it fits sites whose keys are the
    // source; attention over the target grows by one position per step.
    if (!sites[find_site(sites, o.site)].takes_custom_weights())
      throw InputError("custom attention weights need a fixed length: use them on a site whose keys are the source, not '" +
                       o.site + "'");
    const HeadEdit edit{false, true, o.pattern, o.custom};
    for (size_t r = 0; r < std::max<size_t>(o.custom.size(), 1); ++r) {
      if (r < o.custom.size() && o.custom[r].size() != source_.ids.size())
        throw InputError("custom attention row " + std::to_string(r) + " has " + std::to_string(o.custom[r].size()) +
                         " weights but the source has " + std::to_string(source_.ids.size()) + " tokens (including </s>)");
      edit.weights_for(static_cast<int>(r), static_cast<int>(source_.ids.size()));  // checks the values
    }
  }
  memory_ = encode(*model_, source_.ids, options_.capture, &encoder_trace_, options_.interventions);
  rules_ = make_logits_processors(options_, c.special.eos, c.suppress_tokens, limit_);
  sampler_.reseed(options_.seed, 0);
  add_node(-1, -1, c.special.bos, 0.0f, 0.0, NodeStatus::Live);
  beam_.push_back(Live{Hypothesis{{}, 0.0, 0}, start_decoder(*model_, memory_)});
}

int DecodeSession::add_node(int parent, int step, int token, float log_prob, double score, NodeStatus status) {
  nodes_.push_back(BeamNode{parent, step, token, log_prob, score, status});
  return static_cast<int>(nodes_.size()) - 1;
}

std::vector<Hypothesis> DecodeSession::live() const {
  std::vector<Hypothesis> out;
  for (const Live& l : beam_) out.push_back(l.hyp);
  return out;
}

const StepRecord& DecodeSession::record(int step) const {
  if (step < 0 || step >= static_cast<int>(history_.size()))
    throw IndexError("step " + std::to_string(step) + " is out of range: " + std::to_string(history_.size()) +
                     " steps taken");
  return history_[step];
}

const Expansion& DecodeSession::expansion(int step, int hypothesis) const {
  const StepRecord& r = record(step);
  if (hypothesis < 0 || hypothesis >= static_cast<int>(r.expansions.size()))
    throw IndexError("hypothesis " + std::to_string(hypothesis) + " is out of range: step " + std::to_string(step) +
                     " extended " + std::to_string(r.expansions.size()));
  return r.expansions[hypothesis];
}

std::vector<const Expansion*> DecodeSession::lineage(int step, int hypothesis) const {
  std::vector<const Expansion*> chain(step + 1, nullptr);
  chain[step] = &expansion(step, hypothesis);
  int node = chain[step]->node;
  for (int k = step - 1; k >= 0; --k) {
    node = nodes_[node].parent;
    for (const Expansion& e : history_[k].expansions)
      if (e.node == node) chain[k] = &e;
    if (!chain[k]) throw Error("the hypothesis' history is incomplete at step " + std::to_string(k));
  }
  return chain;
}

std::string DecodeSession::detokenize(const std::vector<int>& ids) const {
  const SpecialTokens& s = model_->config.special;
  return decode(*model_->tgt_tokenizer, model_->tgt_vocab, ids, {s.bos, s.eos, s.pad});
}

std::vector<FinishedHypothesis> DecodeSession::nbest() const {
  std::vector<FinishedHypothesis> ranked = finished_;
  std::stable_sort(ranked.begin(), ranked.end(), [](const FinishedHypothesis& a, const FinishedHypothesis& b) {
    return a.normalized_score > b.normalized_score;
  });
  if (static_cast<int>(ranked.size()) > options_.nbest) ranked.resize(options_.nbest);
  return ranked;
}

void DecodeSession::check_can_advance() const {
  if (done_) throw Error("decoding has finished: call back() to undo a step, or start a new session");
}

Expansion DecodeSession::expand(const Live& live, int index, const Matrix& logits, Scores& scores, StepTrace&& trace) {
  Expansion e;
  e.hypothesis = index;
  e.node = live.hyp.node;
  e.prefix = live.hyp.tokens;
  e.score = live.hyp.score;
  e.trace = std::move(trace);
  scores.logits = logits;
  // Greedy and sampling read a few log-probabilities (the chosen token, the alternatives): the
  // normaliser gives each, bit for bit as the whole vector would. Beam search ranks by the
  // whole vector, and capture hands it out.
  scores.norm = ops::log_softmax_of_row(scores.logits);
  const bool beam = options_.strategy == Strategy::Beam;
  scores.reshaped = rules_.reshapes();
  if ((beam && !scores.reshaped) || options_.capture.logits) scores.log_probs = scores.norm.log_probs(scores.logits);

  const int vocab = static_cast<int>(logits.cols());
  if (scores.reshaped) {
    // The rules rewrite a copy before it is normalised; what is reported stays the model's.
    scores.reshaped_logits = logits;
    rules_.reshape(live.hyp.tokens, scores.reshaped_logits.data(), vocab);
    if (!scores.reshaped_logits.allFinite())
      throw Error("the repetition penalty made a logit infinite at step " + std::to_string(history_.size()));
    scores.reshaped_norm = ops::log_softmax_of_row(scores.reshaped_logits);
    if (beam) scores.reshaped_log_probs = scores.reshaped_norm.log_probs(scores.reshaped_logits);
  }
  for (int id : top_indices(logits.data(), vocab, options_.alternatives)) {
    const float log_prob = scores.log_prob(id);
    e.top.push_back({id, logits(0, id), log_prob, std::exp(log_prob)});
  }
  if (options_.capture.logits) {
    e.logits.assign(logits.data(), logits.data() + vocab);
    e.log_probs.assign(scores.log_probs.data(), scores.log_probs.data() + vocab);
  }
  // The choosers skip banned tokens (</s> before min_length, repeated n-grams). A ban that would
  // leave nothing to choose (</s> the only token, say) does not apply.
  scores.banned = rules_.banned(live.hyp.tokens, vocab);
  if (options_.renormalize && !scores.banned.empty()) {
    // HF's renormalize_logits: log p over the allowed tokens only, as a rewritten row whose
    // banned entries are -inf (what is reported stays the model's).
    if (!scores.reshaped) scores.reshaped_logits = logits;
    scores.reshaped = true;
    for (int id : scores.banned) scores.reshaped_logits(0, id) = -std::numeric_limits<float>::infinity();
    scores.reshaped_norm = ops::log_softmax_of_row(scores.reshaped_logits);
    if (beam) scores.reshaped_log_probs = scores.reshaped_norm.log_probs(scores.reshaped_logits);
  }
  return e;
}

void DecodeSession::expand_all(StepRecord& record, std::vector<Scores>& scores, int only) {
  std::vector<int> which;  // the hypotheses to extend
  for (std::size_t i = 0; i < beam_.size(); ++i)
    if (only < 0 || static_cast<int>(i) == only) which.push_back(static_cast<int>(i));
  try {
    // The whole beam in one decoder step: each weight matrix is read once per step, not once
    // per hypothesis, and each hypothesis gets the logits it would get alone.
    std::vector<DecoderState*> states;
    std::vector<int> tokens;
    std::vector<StepTrace> traces(which.size());
    std::vector<StepTrace*> trace_ptrs;
    for (std::size_t k = 0; k < which.size(); ++k) {
      Live& live = beam_[which[k]];
      states.push_back(live.state.get());
      tokens.push_back(live.hyp.tokens.empty() ? model_->config.special.bos : live.hyp.tokens.back());
      trace_ptrs.push_back(&traces[k]);
    }
    const Matrix logits = decode_steps(*model_, states, tokens, options_.capture, trace_ptrs, options_.interventions);
    // Finite weights can still overflow float32 (a huge embedding_scale, say): refuse to choose
    // from NaN or infinite logits rather than hand out a confident-looking translation.
    if (!logits.allFinite())
      throw Error("the model's computation overflowed at step " + std::to_string(history_.size()) +
                  ": its logits are NaN or infinite (weights or embedding_scale too large for float32)");
    for (std::size_t k = 0; k < which.size(); ++k)
      record.expansions.push_back(expand(beam_[which[k]], which[k], logits.row(static_cast<Eigen::Index>(k)),
                                         scores[which[k]], std::move(traces[k])));
  } catch (...) {
    // Leave the session as it was: drop whatever this step appended to the caches.
    for (Live& l : beam_) l.state->truncate(static_cast<int>(l.hyp.tokens.size()));
    throw;
  }
  undo_.push_back(Undo{live(), finished_, nodes_.size(), sampler_.draws()});
  retired_.clear();
}

const StepRecord& DecodeSession::step() {
  check_can_advance();
  if (const int forced = rules_.forced(beam_[0].hyp.tokens); forced >= 0) return force(forced, 0);

  StepRecord record;
  record.step = static_cast<int>(history_.size());
  std::vector<Scores> scores(beam_.size());
  expand_all(record, scores, -1);

  if (options_.strategy == Strategy::Beam) choose_beam(record, scores);
  else choose_greedy_or_sample(record, scores);
  history_.push_back(std::move(record));
  return history_.back();
}

void DecodeSession::choose_greedy_or_sample(StepRecord& record, const std::vector<Scores>& scores) {
  Live& parent = beam_[0];
  const Scores& s = scores[0];
  const Matrix& logits = s.choice_logits();
  const int vocab = static_cast<int>(logits.cols());
  int token = -1;
  if (options_.strategy == Strategy::Greedy) {
    // Arg-max over the tokens not banned, lowest id on ties.
    for (int i = 0, b = 0; i < vocab; ++i) {
      if (b < static_cast<int>(s.banned.size()) && s.banned[b] == i) {
        ++b;
        continue;
      }
      if (token < 0 || logits(0, i) > logits(0, token)) token = i;
    }
  } else {
    token = sampler_.draw(rules_.sampling_candidates(logits.data(), vocab, s.banned));
  }
  const float token_lp = s.choice_log_prob(token);
  Live child{Hypothesis{parent.hyp.tokens, parent.hyp.score + token_lp, 0}, std::move(parent.state)};
  child.hyp.tokens.push_back(token);
  child.hyp.node = add_node(parent.hyp.node, record.step, token, token_lp, child.hyp.score, NodeStatus::Live);
  std::vector<Live> next;
  admit(next, std::move(child));
  finish_step(std::move(next));
}

void DecodeSession::choose_beam(StepRecord& record, const std::vector<Scores>& scores) {
  const int k = options_.beam_size;
  const int eos = model_->config.special.eos;
  struct Candidate {
    double total;
    int hyp, token;
    float log_prob;
  };
  // The 2k best continuations of each hypothesis that are not banned contain the 2k best overall.
  std::vector<Candidate> candidates;
  for (std::size_t h = 0; h < beam_.size(); ++h) {
    const Matrix& lp = scores[h].choice_log_probs();
    const std::vector<int>& banned = scores[h].banned;
    for (int t : top_indices(lp.data(), static_cast<int>(lp.cols()), 2 * k + static_cast<int>(banned.size())))
      if (!std::binary_search(banned.begin(), banned.end(), t))
        candidates.push_back({beam_[h].hyp.score + lp(0, t), static_cast<int>(h), t, lp(0, t)});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.total != b.total) return a.total > b.total;
    return a.hyp != b.hyp ? a.hyp < b.hyp : a.token < b.token;
  });
  if (static_cast<int>(candidates.size()) > 2 * k) candidates.resize(2 * k);

  // Decide every candidate first, so each parent's state can be moved into its last child.
  std::vector<int> taken;  // indices into candidates that continue (live or finished)
  int live_taken = 0;
  for (int r = 0; r < static_cast<int>(candidates.size()); ++r) {
    const Candidate& c = candidates[r];
    const int parent_node = beam_[c.hyp].hyp.node;
    const bool keep = c.token == eos ? r < k : live_taken < k;
    if (keep && c.token != eos) ++live_taken;
    if (keep) taken.push_back(r);
    else add_node(parent_node, record.step, c.token, c.log_prob, c.total, NodeStatus::Pruned);
  }
  std::vector<int> uses(beam_.size(), 0);
  for (int r : taken) ++uses[candidates[r].hyp];

  // </s> candidates first (in rank order), so they finish before any hypothesis cut at the
  // limit in this step: the finishing order breaks ties in the n-best ranking.
  std::stable_partition(taken.begin(), taken.end(), [&](int r) { return candidates[r].token == eos; });
  std::vector<Live> next;
  for (int r : taken) {
    const Candidate& c = candidates[r];
    Live& parent = beam_[c.hyp];
    Live child{Hypothesis{parent.hyp.tokens, c.total, 0}, nullptr};
    if (--uses[c.hyp] == 0) child.state = std::move(parent.state);  // its last child takes it over
    else child.state = parent.state->clone();
    child.hyp.tokens.push_back(c.token);
    child.hyp.node = add_node(parent.hyp.node, record.step, c.token, c.log_prob, c.total, NodeStatus::Live);
    admit(next, std::move(child));
  }
  finish_step(std::move(next));
}

void DecodeSession::admit(std::vector<Live>& next, Live&& child) {
  const Hypothesis& h = child.hyp;
  const int length = static_cast<int>(h.tokens.size());
  const bool ended = h.tokens.back() == model_->config.special.eos;
  if (!ended && length < limit_) {
    next.push_back(std::move(child));
    return;
  }
  if (!ended) hit_max_length_ = true;
  nodes_[h.node].status = ended ? NodeStatus::Finished : NodeStatus::Cut;
  finished_.push_back(FinishedHypothesis{
      h.tokens, h.score, penalized_score(h.score, length, options_.length_penalty, options_.alpha), ended, h.node});
  retired_.push_back(std::move(child));
}

void DecodeSession::finish_step(std::vector<Live>&& next) {
  beam_ = std::move(next);
  if (beam_.empty()) {
    done_ = true;
    return;
  }
  if (options_.strategy != Strategy::Beam) return;

  // Stopping rule (README.md): the n-th best score of those ended by </s> already beats what a
  // live hypothesis can still reach (Bound), or Hugging Face's rule: n = beam_size, and "can
  // still reach" is its estimate (Heuristic, Never) or nothing at all (Early).
  const EarlyStopping rule = options_.early_stopping;
  const int n = rule == EarlyStopping::Bound ? options_.nbest : options_.beam_size;
  std::vector<double> scores;
  for (const FinishedHypothesis& f : finished_)
    if (f.finished) scores.push_back(f.normalized_score);
  if (static_cast<int>(scores.size()) < n) return;
  std::nth_element(scores.begin(), scores.begin() + (n - 1), scores.end(), std::greater<double>());
  const double nth_best = scores[n - 1];
  // HF's "never" uses the limit when its length penalty is positive (favours longer output).
  const bool favours_length = options_.length_penalty == LengthPenalty::Average ||
                              (options_.length_penalty != LengthPenalty::None && options_.alpha > 0);
  double best_reachable = -std::numeric_limits<double>::infinity();
  for (const Live& l : beam_) {
    const int length = static_cast<int>(l.hyp.tokens.size());
    double bound = l.hyp.score;
    if (rule == EarlyStopping::Early) {
      bound = -std::numeric_limits<double>::infinity();
    } else if (rule == EarlyStopping::Heuristic || (rule == EarlyStopping::Never && !favours_length)) {
      bound = penalized_score(l.hyp.score, length, options_.length_penalty, options_.alpha);
    } else if (options_.length_penalty != LengthPenalty::None) {
      bound = penalized_score(l.hyp.score, limit_, options_.length_penalty, options_.alpha);
    }
    best_reachable = std::max(best_reachable, bound);
  }
  if (nth_best >= best_reachable) {
    done_ = true;
    for (const Live& l : beam_) nodes_[l.hyp.node].status = NodeStatus::Pruned;
  }
}

const StepRecord& DecodeSession::force(int token, int hypothesis) {
  check_can_advance();
  const int vocab = model_->tgt_vocab.size();
  if (token < 0 || token >= vocab)
    throw IndexError("cannot force token id " + std::to_string(token) + ": the target vocabulary has ids [0, " +
                     std::to_string(vocab) + ")");
  if (hypothesis < 0 || hypothesis >= static_cast<int>(beam_.size()))
    throw IndexError("cannot force hypothesis " + std::to_string(hypothesis) + ": there are " +
                     std::to_string(beam_.size()) + " live hypotheses");

  StepRecord record;
  record.step = static_cast<int>(history_.size());
  std::vector<Scores> all_scores(beam_.size());
  expand_all(record, all_scores, hypothesis);
  const Scores& scores = all_scores[hypothesis];
  Live& parent = beam_[hypothesis];
  record.forced = true;
  record.forced_token = token;
  // The model's own opinion of the forced token, even where min_length would forbid it.
  record.forced_log_prob = scores.log_prob(token);
  for (std::size_t i = 0; i < beam_.size(); ++i)
    if (static_cast<int>(i) != hypothesis) nodes_[beam_[i].hyp.node].status = NodeStatus::Pruned;

  Live child{Hypothesis{parent.hyp.tokens, parent.hyp.score + record.forced_log_prob, 0}, std::move(parent.state)};
  child.hyp.tokens.push_back(token);
  child.hyp.node = add_node(parent.hyp.node, record.step, token, record.forced_log_prob, child.hyp.score,
                            NodeStatus::Live);
  std::vector<Live> next;
  admit(next, std::move(child));
  finish_step(std::move(next));
  history_.push_back(std::move(record));
  return history_.back();
}

void DecodeSession::run() {
  while (!done_) step();
}

std::unique_ptr<DecoderState> DecodeSession::replay(const std::vector<int>& tokens) const {
  // A hypothesis of n tokens has fed <s> and its first n - 1 tokens.
  std::unique_ptr<DecoderState> state = start_decoder(*model_, memory_);
  for (std::size_t i = 0; i < tokens.size(); ++i)
    decode_step(*model_, *state, i == 0 ? model_->config.special.bos : tokens[i - 1], Capture{}, nullptr,
                options_.interventions);
  return state;
}

void DecodeSession::back() {
  if (undo_.empty()) throw Error("cannot go back: no step has been taken yet");
  Undo undo = std::move(undo_.back());
  undo_.pop_back();
  history_.pop_back();

  // Each restored hypothesis gets its cache back by truncating a child's (the child fed one
  // more token); only one whose every child is gone has to be recomputed.
  std::vector<Live*> children;
  for (Live& l : beam_) children.push_back(&l);
  for (Live& l : retired_) children.push_back(&l);
  std::vector<Live> restored;
  for (const Hypothesis& h : undo.beam) {
    Live* child = nullptr;
    for (Live* c : children)
      if (nodes_[c->hyp.node].parent == h.node) child = c;
    std::unique_ptr<DecoderState> state = child ? child->state->clone() : replay(h.tokens);
    state->truncate(static_cast<int>(h.tokens.size()));
    restored.push_back(Live{h, std::move(state)});
  }
  beam_ = std::move(restored);
  retired_.clear();
  finished_ = std::move(undo.finished);
  nodes_.resize(undo.nodes);
  for (const Live& l : beam_) nodes_[l.hyp.node].status = NodeStatus::Live;
  sampler_.reseed(options_.seed, undo.draws);
  done_ = hit_max_length_ = false;
  for (const FinishedHypothesis& f : finished_) hit_max_length_ |= !f.finished;
}

}  // namespace attnscope
