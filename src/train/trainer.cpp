#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "decoding/session.h"
#include "model/model.h"
#include "model/registry.h"
#include "text/tokenizer.h"
#include "train/family_options.h"

namespace attnscope::train {
namespace {

const char* kWordTokenizer = "{\"type\":\"word\",\"lowercase\":true,\"split_punctuation\":true}";

// The sorted words of one side, after the four special tokens. Refused, naming the pair that
// brings it there, as soon as it would exceed kMaxVocabulary.
std::vector<std::string> word_vocab(const std::vector<std::vector<std::string>>& sentences,
                                    const std::vector<TrainPair>& pairs, const char* side) {
  std::set<std::string> words;  // std::string order = code point order of UTF-8, as Python's sorted()
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    for (const std::string& w : sentences[i]) words.insert(w);
    if (words.size() + 4 > static_cast<std::size_t>(kMaxVocabulary))
      throw InputError(pair_name(pairs[i], i) + " brings the " + side + " vocabulary past the " +
                       std::to_string(kMaxVocabulary) + " entries a model may have");
  }
  std::vector<std::string> vocab = {"<pad>", "<unk>", "<s>", "</s>"};
  for (const std::string& w : words)
    if (std::find(vocab.begin(), vocab.begin() + 4, w) == vocab.begin() + 4) vocab.push_back(w);
  return vocab;
}

// Length-bucketed batches as models/train/train.py `batches`: sorted by (target, source) length, a
// batch grows while (its longest sentence) · (its size) stays within max_tokens.
std::vector<std::vector<int>> bucket(const std::vector<Example>& examples, int max_tokens) {
  std::vector<int> order(examples.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return std::make_pair(examples[a].tgt.size(), examples[a].src.size()) <
           std::make_pair(examples[b].tgt.size(), examples[b].src.size());
  });
  std::vector<std::vector<int>> groups;
  std::vector<int> cur;
  std::size_t cur_max = 0;
  for (int i : order) {
    const std::size_t len = std::max(examples[i].tgt.size(), examples[i].src.size());
    std::size_t n = std::max(cur_max, len);
    if (!cur.empty() && n * (cur.size() + 1) > static_cast<std::size_t>(max_tokens)) {
      groups.push_back(cur);
      cur.clear();
      n = len;
    }
    cur.push_back(i);
    cur_max = n;
  }
  if (!cur.empty()) groups.push_back(cur);
  return groups;
}

}  // namespace

namespace {

// The word tokenizer and the vocabularies of a fresh model; `longest`: the longest sentence in
// words; `longest_pair`: the most words of a source and its target together. `joint`: one
// vocabulary of both sides (a decoder-only model's), else one per side.
ModelText word_text(const std::vector<TrainPair>& pairs, std::size_t& longest, bool joint = false,
                    std::size_t* longest_pair = nullptr) {
  check_pairs(pairs);
  const auto tokenizer = Tokenizer::from_json(kWordTokenizer);
  std::vector<std::vector<std::string>> sources, targets, both;
  std::vector<TrainPair> pairs_of_both;  // both[i] came from pairs_of_both[i], for the messages
  longest = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    sources.push_back(tokenizer->split(pairs[i].source));
    targets.push_back(tokenizer->split(pairs[i].target));
    check_tokens(pairs[i], i, sources.back().size(), targets.back().size());
    longest = std::max({longest, sources.back().size(), targets.back().size()});
    if (longest_pair) *longest_pair = std::max(*longest_pair, sources.back().size() + targets.back().size());
    if (joint) {
      both.insert(both.end(), {sources.back(), targets.back()});
      pairs_of_both.insert(pairs_of_both.end(), {pairs[i], pairs[i]});
    }
  }
  ModelText text;
  text.tokenizer_json = kWordTokenizer;
  if (joint) {
    text.src_vocab = text.tgt_vocab = word_vocab(both, pairs_of_both, "one");
    return text;
  }
  text.src_vocab = word_vocab(sources, pairs, "source");
  text.tgt_vocab = word_vocab(targets, pairs, "target");
  return text;
}

}  // namespace

WordTextOf word_text_of(const std::vector<TrainPair>& pairs) {
  return [&pairs](bool joint) {
    WordText w;
    w.text = word_text(pairs, w.longest, joint, &w.longest_pair);
    return w;
  };
}

std::unique_ptr<Trainable> fresh_trainable(const std::vector<TrainPair>& pairs, const std::string& family,
                                           const nlohmann::json& architecture, std::uint64_t seed) {
  const FamilyRegistration* r = trainable_family(family);
  if (!r) throw InputError("unknown model family '" + family + "' (" + trainable_family_names("", ", ") + ")");
  check_architecture_options(*r, architecture);
  return r->training->fresh(architecture, word_text_of(pairs), seed);
}

Trainer::Trainer(std::unique_ptr<Trainable> model, std::vector<TrainPair> pairs, TrainOptions options)
    : model_(std::move(model)),
      options_(options),
      adam_(model_->parameters(), options.adam),
      random_(options.seed) {
  if (options_.batch_tokens < 1) throw InputError("batch tokens must be >= 1");
  if (!(options_.lr > 0)) throw InputError("learning rate must be > 0");
  if (!(options_.label_smoothing >= 0 && options_.label_smoothing < 1) || !(options_.dropout >= 0 && options_.dropout < 1))
    throw InputError("label smoothing and dropout must be in [0, 1)");
  if (!(options_.clip_norm >= 0)) throw InputError("clip norm must be >= 0 (0: no clipping)");
  model_->check_options(LossOptions{options_.label_smoothing, options_.dropout});
  set_pairs(std::move(pairs));
}

void Trainer::set_pairs(std::vector<TrainPair> pairs) {
  check_pairs(pairs);
  std::vector<Example> examples;
  const auto tokenizer = Tokenizer::from_json(model_->text().tokenizer_json);
  const Vocabulary src_vocab(model_->text().src_vocab), tgt_vocab(model_->text().tgt_vocab);
  const ModelConfig& c = model_->shared_config();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const TrainPair& p = pairs[i];
    const std::vector<int> source = encode(*tokenizer, src_vocab, p.source, c.special.unk).ids;
    const std::vector<int> target = encode(*tokenizer, tgt_vocab, p.target, c.special.unk).ids;
    check_tokens(p, i, source.size(), target.size());
    Example e = model_->example(source, target);
    if ((e.src.empty() && source.empty()) || static_cast<int>(e.src.size()) > c.max_positions ||
        static_cast<int>(e.tgt.size()) - 1 > c.max_positions)
      throw InputError(pair_name(p, i) + " is empty or longer than the model's " + std::to_string(c.max_positions) +
                       " positions");
    examples.push_back(std::move(e));
  }
  groups_ = bucket(examples, options_.batch_tokens);
  examples_ = std::move(examples);
  pairs_ = std::move(pairs);
}

EpochReport Trainer::epoch() {
  const auto start = std::chrono::steady_clock::now();
  std::vector<int> order(groups_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random_.below(i)]);  // Fisher-Yates
  LossOptions loss_options{options_.label_smoothing, options_.dropout};
  double loss_sum = 0.0;
  int tokens = 0;
  for (int g : order) {
    std::vector<Example> batch;
    for (int i : groups_[g]) batch.push_back(examples_[i]);
    const TensorList grads = model_->gradients();
    for (const NamedTensor& g : grads) g.tensor->setZero();
    const LossResult r = model_->loss_and_gradients(batch, loss_options, &random_);
    if (options_.clip_norm > 0) clip_grad_norm_tensors(grads, options_.clip_norm);
    adam_.step_tensors(model_->parameters(), grads, options_.lr * options_.schedule.factor(updates_++));
    loss_sum += r.loss_sum;
    tokens += r.tokens;
  }
  EpochReport report;
  report.epoch = ++epochs_;
  report.loss = tokens ? loss_sum / tokens : 0.0;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.model = model();
  report.exact = options_.count_exact ? exact_matches(*report.model) : -1;
  report.total = static_cast<int>(pairs_.size());
  return report;
}

std::vector<std::uint8_t> Trainer::export_bytes() { return model_->export_bytes(); }

std::shared_ptr<const Model> Trainer::model() {
  const auto bytes = export_bytes();
  return Model::load_bytes(bytes.data(), bytes.size());
}

int Trainer::exact_matches(const Model& model) const {
  // A non-owning shared_ptr: the sessions live only inside this call.
  const std::shared_ptr<const Model> view(std::shared_ptr<const Model>(), &model);
  int exact = 0;
  for (const TrainPair& p : pairs_) {
    DecodeSession session(view, p.source, DecodeOptions{});
    session.run();
    const auto best = session.nbest();
    const Encoded want = encode(*model.tgt_tokenizer, model.tgt_vocab, p.target, model.config.special.unk);
    exact += !best.empty() && session.detokenize(best[0].tokens) == model.tgt_tokenizer->join(want.pieces);
  }
  return exact;
}

}  // namespace attnscope::train
