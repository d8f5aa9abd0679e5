#include "train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "decoding/session.h"
#include "model/model.h"
#include "text/tokenizer.h"

namespace attnscope::train {
namespace {

const char* kWordTokenizer = "{\"type\":\"word\",\"lowercase\":true,\"split_punctuation\":true}";

std::vector<std::string> word_vocab(const Tokenizer& tokenizer, const std::vector<std::string>& lines) {
  std::set<std::string> words;  // std::string order = code point order of UTF-8, as Python's sorted()
  for (const std::string& line : lines)
    for (const std::string& w : tokenizer.split(line)) words.insert(w);
  std::vector<std::string> vocab = {"<pad>", "<unk>", "<s>", "</s>"};
  for (const std::string& w : words)
    if (std::find(vocab.begin(), vocab.begin() + 4, w) == vocab.begin() + 4) vocab.push_back(w);
  return vocab;
}

// Length-bucketed batches as models/train.py `batches`: sorted by (target, source) length, a
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

std::vector<TrainPair> parse_pairs_csv(const std::string& text) {
  std::vector<TrainPair> pairs;
  std::size_t start = 0;
  int line_no = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    ++line_no;
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::size_t comma = line.find(',');
    if (comma == std::string::npos || line.find(',', comma + 1) != std::string::npos)
      throw InputError("pairs line " + std::to_string(line_no) + " needs exactly one comma (source,target): '" +
                       line.substr(0, 80) + "'");
    pairs.push_back({line.substr(0, comma), line.substr(comma + 1)});
  }
  if (pairs.empty()) throw InputError("no sentence pairs given");
  return pairs;
}

TrainableModel fresh_model(const std::vector<TrainPair>& pairs, const Architecture& arch, std::uint64_t seed) {
  if (arch.layers < 1 || arch.heads < 1 || arch.d_model < 1 || arch.d_model % arch.heads != 0 || arch.d_ff < 0)
    throw InputError("architecture needs layers, heads, d_model >= 1 with d_model divisible by heads");
  const auto tokenizer = Tokenizer::from_json(kWordTokenizer);
  std::vector<std::string> sources, targets;
  std::size_t longest = 0;
  for (const TrainPair& p : pairs) {
    sources.push_back(p.source);
    targets.push_back(p.target);
    longest = std::max({longest, tokenizer->split(p.source).size(), tokenizer->split(p.target).size()});
  }
  TrainableModel m;
  m.text.tokenizer_json = kWordTokenizer;
  m.text.src_vocab = word_vocab(*tokenizer, sources);
  m.text.tgt_vocab = word_vocab(*tokenizer, targets);
  ModelConfig c;
  c.d_model = arch.d_model;
  c.n_heads = arch.heads;
  c.d_ff = arch.d_ff ? arch.d_ff : 2 * arch.d_model;
  c.n_encoder_layers = c.n_decoder_layers = arch.layers;
  c.max_positions = std::max<int>(16, static_cast<int>(longest) + 2);
  c.embedding_scale = std::sqrt(static_cast<double>(arch.d_model));
  m.params = fresh_params(c, static_cast<int>(m.text.src_vocab.size()), static_cast<int>(m.text.tgt_vocab.size()), seed);
  return m;
}

Trainer::Trainer(TrainableModel model, std::vector<TrainPair> pairs, TrainOptions options)
    : model_(std::move(model)),
      pairs_(std::move(pairs)),
      options_(options),
      adam_(model_.params, options.adam),
      random_(options.seed),
      grads_(model_.params.zeros_like()) {
  if (pairs_.empty()) throw InputError("no sentence pairs given");
  if (options_.batch_tokens < 1) throw InputError("batch tokens must be >= 1");
  if (!(options_.lr > 0)) throw InputError("learning rate must be > 0");
  if (!(options_.label_smoothing >= 0 && options_.label_smoothing < 1) || !(options_.dropout >= 0 && options_.dropout < 1))
    throw InputError("label smoothing and dropout must be in [0, 1)");
  if (!(options_.clip_norm >= 0)) throw InputError("clip norm must be >= 0 (0: no clipping)");
  const auto tokenizer = Tokenizer::from_json(model_.text.tokenizer_json);
  const Vocabulary src_vocab(model_.text.src_vocab), tgt_vocab(model_.text.tgt_vocab);
  const ModelConfig& c = model_.params.config;
  for (const TrainPair& p : pairs_) {
    Example e;
    e.src = encode(*tokenizer, src_vocab, p.source, c.special.unk).ids;
    if (c.src_append_eos) e.src.push_back(c.special.eos);
    e.tgt = encode(*tokenizer, tgt_vocab, p.target, c.special.unk).ids;
    e.tgt.insert(e.tgt.begin(), c.special.bos);
    e.tgt.push_back(c.special.eos);
    if (e.src.empty() || static_cast<int>(e.src.size()) > c.max_positions ||
        static_cast<int>(e.tgt.size()) - 1 > c.max_positions)
      throw InputError("pair '" + p.source + "' / '" + p.target + "' is empty or longer than max_positions");
    examples_.push_back(std::move(e));
  }
  groups_ = bucket(examples_, options_.batch_tokens);
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
    grads_.set_zero();
    const LossResult r = loss_and_gradients(model_.params, batch, loss_options, &random_, grads_);
    if (options_.clip_norm > 0) clip_grad_norm(grads_, options_.clip_norm);
    adam_.step(model_.params, grads_, options_.lr * options_.schedule.factor(updates_++));
    loss_sum += r.loss_sum;
    tokens += r.tokens;
  }
  EpochReport report;
  report.epoch = ++epochs_;
  report.loss = tokens ? loss_sum / tokens : 0.0;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.model = model();
  report.exact = exact_matches(*report.model);
  report.total = static_cast<int>(pairs_.size());
  return report;
}

std::vector<std::uint8_t> Trainer::export_bytes() { return export_safetensors(model_.params, model_.text); }

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
    const Encoded want = encode(*model.tokenizer, model.tgt_vocab, p.target, model.config.special.unk);
    exact += !best.empty() && session.detokenize(best[0].tokens) == model.tokenizer->join(want.pieces);
  }
  return exact;
}

}  // namespace attnscope::train
