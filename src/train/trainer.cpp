#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "decoding/session.h"
#include "model/model.h"
#include "text/tokenizer.h"

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

// A model file's limits (config_fields.h) hold for a trained model too: checked before the
// weights are allocated, not when the trained file is written and read back.
void check_config(const ModelConfig& c) {
  try {
    ModelConfig::from_json(c.to_json());
  } catch (const ModelFileError& e) {
    throw InputError("architecture: " + e.detail());
  }
}

}  // namespace

TrainableModel fresh_model(const std::vector<TrainPair>& pairs, const Architecture& arch, std::uint64_t seed) {
  if (arch.layers < 1 || arch.heads < 1 || arch.d_model < 1 || arch.d_model % arch.heads != 0 || arch.d_ff < 0)
    throw InputError("architecture needs layers, heads, d_model >= 1 with d_model divisible by heads");
  std::size_t longest = 0;
  TrainableModel m;
  m.text = word_text(pairs, longest);
  ModelConfig c;
  c.d_model = arch.d_model;
  c.n_heads = arch.heads;
  c.d_ff = arch.d_ff ? arch.d_ff : 2 * arch.d_model;
  c.n_encoder_layers = c.n_decoder_layers = arch.layers;
  c.max_positions = std::max<int>(16, static_cast<int>(longest) + 2);
  c.embedding_scale = std::sqrt(static_cast<double>(arch.d_model));
  check_config(c);
  m.params = fresh_params(c, static_cast<int>(m.text.src_vocab.size()), static_cast<int>(m.text.tgt_vocab.size()), seed);
  return m;
}

TrainableRnn fresh_rnn_model(const std::vector<TrainPair>& pairs, const RnnArchitecture& arch, std::uint64_t seed) {
  const int directions = arch.bidirectional ? 2 : 1;
  if (arch.layers < 1 || arch.d_embed < 1 || arch.d_hidden < 1 || arch.d_encoder < 0 || arch.d_attention < 0 ||
      arch.local_window < 0)
    throw InputError("RNN architecture needs layers, dEmbed, dHidden >= 1 (dEncoder, dAttention, localWindow >= 0)");
  if (arch.d_encoder == 0 && arch.d_hidden % directions != 0)
    throw InputError("a bidirectional RNN's dHidden must be even when dEncoder is left to default (dHidden / 2)");
  std::size_t longest = 0;
  TrainableRnn m;
  m.text = word_text(pairs, longest);
  const bool additive = arch.score == "additive" && arch.attention != "none";
  const nlohmann::json j = {
      {"architecture", "rnn"},
      {"cell", arch.cell},
      {"d_embed", arch.d_embed},
      {"d_encoder", arch.d_encoder ? arch.d_encoder : arch.d_hidden / directions},
      {"d_hidden", arch.d_hidden},
      {"n_encoder_layers", arch.layers},
      {"n_decoder_layers", arch.layers},
      {"bidirectional", arch.bidirectional},
      {"attention", arch.attention},
      {"score", arch.attention == "none" ? std::string("none") : arch.score},
      {"d_attention", additive ? (arch.d_attention ? arch.d_attention : arch.d_hidden) : arch.d_attention},
      {"input_feeding", arch.input_feeding},
      {"local_window", arch.local_window},
      {"max_positions", std::max<int>(16, static_cast<int>(longest) + 2)},
      {"shared_embeddings", false},
      {"src_append_eos", true},
      {"special_tokens", {{"pad", 0}, {"unk", 1}, {"bos", 2}, {"eos", 3}}}};
  ModelConfig shared;
  rnn::Config config;
  try {
    shared = ModelConfig::from_json(j.dump());
    config = rnn::Config::from_json(j.dump());
  } catch (const ModelFileError& e) {
    std::string why = e.what();  // the loader's words for a file; here they describe options
    const std::string file_prefix = "invalid model file: ";
    if (why.rfind(file_prefix, 0) == 0) why.erase(0, file_prefix.size());
    throw InputError("RNN architecture: " + why);
  }
  shared.family_json = j.dump();
  m.params = fresh_rnn_params(shared, static_cast<int>(m.text.src_vocab.size()),
                              static_cast<int>(m.text.tgt_vocab.size()), seed);
  m.params.shared.family_json = rnn_config_json(config, shared);  // what export writes: export.py's key order
  return m;
}

TrainableDecoderOnly fresh_decoder_only_model(const std::vector<TrainPair>& pairs, const DecoderOnlyArchitecture& arch,
                                              std::uint64_t seed) {
  if (arch.layers < 1 || arch.heads < 1 || arch.d_model < 1 || arch.d_model % arch.heads != 0 || arch.d_ff < -1)
    throw InputError("architecture needs layers, heads, d_model >= 1 with d_model divisible by heads");
  std::size_t longest = 0, longest_pair = 0;
  TrainableDecoderOnly m;
  m.text = word_text(pairs, longest, /*joint=*/true, &longest_pair);
  // gpt.py's CONFIG_FIELDS order, as export.py writes the config.
  const nlohmann::ordered_json j = {
      {"architecture", "decoder_only"},
      {"d_model", arch.d_model},
      {"n_heads", arch.heads},
      {"d_ff", arch.d_ff < 0 ? 2 * arch.d_model : arch.d_ff},
      {"n_layers", arch.layers},
      {"activation", arch.activation},
      {"norm", arch.norm},
      {"positions", arch.positions},
      {"max_positions", std::max<int>(16, static_cast<int>(longest_pair) + 2)},
      {"embedding_scale", 1.0},
      {"tied_output", arch.tied_output},
      {"layer_norm_eps", 1e-5},
      {"special_tokens", {{"pad", 0}, {"unk", 1}, {"bos", 2}, {"eos", 3}}}};
  ModelConfig shared;
  try {
    shared = ModelConfig::from_json(j.dump());
    shared.family_json = j.dump();
    m.params = fresh_decoder_only_params(shared, static_cast<int>(m.text.src_vocab.size()), seed);
  } catch (const ModelFileError& e) {
    throw InputError("decoder-only architecture: " + e.detail());
  }
  return m;
}

std::unique_ptr<Trainable> fresh_trainable(const std::vector<TrainPair>& pairs, const std::string& family,
                                           const Architecture& arch, const RnnArchitecture& rnn,
                                           const DecoderOnlyArchitecture& decoder_only, std::uint64_t seed) {
  if (family == "transformer") return make_trainable(fresh_model(pairs, arch, seed));
  if (family == "rnn") return make_trainable(fresh_rnn_model(pairs, rnn, seed));
  if (family == "decoder_only") return make_trainable(fresh_decoder_only_model(pairs, decoder_only, seed));
  throw InputError("unknown model family '" + family + "' (transformer, rnn, decoder_only)");
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
