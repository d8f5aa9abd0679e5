// The decode session's contract (src/decoding/README.md) beyond the Python goldens:
// greedy = beam 1, back() then step() repeats a step exactly, force(), seeds, limits, misuse.
#include <gtest/gtest.h>

#include <set>

#include "decoding/session.h"
#include "test_support.h"
#include "families/transformer/transformer.h"

namespace attnscope {
using transformer::kCross;
using transformer::kDecoderSelf;
using transformer::kEncoderSelf;
namespace {

std::shared_ptr<const Model> load(const std::string& path) {
  return Model::load_file(path.find('/') == std::string::npos ? testing::golden_path(path + ".safetensors") : path);
}
const std::string kToy = std::string(ATTNSCOPE_GOLDEN_DIR) + "/../../models/toy-en-de.safetensors";

std::vector<int> run(const std::shared_ptr<const Model>& model, const std::string& text, DecodeOptions options) {
  DecodeSession s(model, text, options);
  s.run();
  return s.nbest().at(0).tokens;
}

DecodeOptions beam(int k, int nbest = 1, LengthPenalty lp = LengthPenalty::None) {
  DecodeOptions o;
  o.strategy = Strategy::Beam;
  o.beam_size = k;
  o.nbest = nbest;
  o.length_penalty = lp;
  return o;
}

TEST(Session, GreedyEqualsBeamOfWidthOne) {
  for (const char* name : {"tiny_post_sin", "small_pre_learned", "deep_post_learned_f16", "deep_pre_sin_bpe"}) {
    const auto model = load(name);
    for (const char* text : {"i can eat apple", "we want to drink beer", "A dog runs fast."}) {
      DecodeOptions greedy;
      greedy.max_length = 12;
      DecodeOptions b = beam(1);
      b.max_length = 12;
      EXPECT_EQ(run(model, text, greedy), run(model, text, b)) << name << ": " << text;
    }
  }
}

TEST(Session, ToyModelTranslatesWithEveryStrategy) {
  const auto model = load(kToy);
  EXPECT_EQ(model->tgt_vocab.size() > 0, true);
  DecodeSession g(model, "i can eat apple", {});
  g.run();
  EXPECT_EQ(g.detokenize(g.nbest()[0].tokens), "ich konnen apfel essen");
  DecodeSession b(model, "i can eat apple", beam(4, 3));
  b.run();
  EXPECT_EQ(b.detokenize(b.nbest()[0].tokens), "ich konnen apfel essen");
  EXPECT_EQ(b.nbest().size(), 3u);
  for (std::size_t i = 1; i < b.nbest().size(); ++i)
    EXPECT_GE(b.nbest()[i - 1].normalized_score, b.nbest()[i].normalized_score);
}

// Steps back at every depth and checks that stepping again reproduces the logits, the choices
// and the attention bit for bit.
void expect_back_then_step_repeats(const std::shared_ptr<const Model>& model, DecodeOptions options) {
  options.capture = {true, false, true};
  options.max_length = 8;
  DecodeSession reference(model, "we want to drink beer", options);
  reference.run();
  const auto want_nbest = reference.nbest();

  DecodeSession s(model, "we want to drink beer", options);
  while (!s.done()) {
    const int depth = s.steps_taken();
    const StepRecord first = s.step();
    if (s.done()) break;
    // Up to two steps back (truncating an already truncated cache), then forward again.
    for (int i = 0; i < std::min(2, depth + 1); ++i) s.back();
    StepRecord again;
    while (s.steps_taken() <= depth) again = s.step();
    ASSERT_EQ(again.step, first.step);
    ASSERT_EQ(again.expansions.size(), first.expansions.size());
    for (std::size_t e = 0; e < first.expansions.size(); ++e) {
      EXPECT_EQ(again.expansions[e].logits, first.expansions[e].logits) << "step " << first.step;
      EXPECT_EQ(again.expansions[e].trace.attention[kCross].data, first.expansions[e].trace.attention[kCross].data);
      EXPECT_EQ(again.expansions[e].trace.attention[kDecoderSelf].data, first.expansions[e].trace.attention[kDecoderSelf].data);
    }
  }
  ASSERT_TRUE(s.done());
  ASSERT_EQ(s.nbest().size(), want_nbest.size());
  for (std::size_t i = 0; i < want_nbest.size(); ++i) {
    EXPECT_EQ(s.nbest()[i].tokens, want_nbest[i].tokens);
    EXPECT_EQ(s.nbest()[i].score, want_nbest[i].score);
  }
  EXPECT_EQ(s.tree().size(), reference.tree().size());
}

TEST(Session, BackThenStepRepeatsGreedy) { expect_back_then_step_repeats(load("deep_pre_sin_bpe"), {}); }
TEST(Session, BackThenStepRepeatsBeam) { expect_back_then_step_repeats(load("tiny_post_sin"), beam(3, 2)); }
TEST(Session, BackThenStepRepeatsSampling) {
  DecodeOptions o;
  o.strategy = Strategy::Sample;
  o.seed = 7;
  expect_back_then_step_repeats(load("small_pre_learned"), o);
}

TEST(Session, BackAtTheStartIsAnErrorAndLeavesTheSessionUsable) {
  DecodeSession s(load(kToy), "i eat apple", {});
  EXPECT_THROW(s.back(), Error);
  s.run();
  EXPECT_THROW(s.step(), Error);
  EXPECT_THROW(s.force(4), Error);
  s.back();
  EXPECT_FALSE(s.done());
  s.run();
  EXPECT_EQ(s.detokenize(s.nbest()[0].tokens), "ich essen apfel");
}

TEST(Session, ForceChangesTheContinuationAndReportsItsLogProb) {
  const auto model = load(kToy);
  DecodeOptions options;
  options.capture.logits = true;
  DecodeSession s(model, "i can eat apple", options);
  s.step();  // ich
  const int mochten = model->tgt_vocab.id("mochten", -1);
  ASSERT_GE(mochten, 0);
  const StepRecord& r = s.force(mochten);
  EXPECT_TRUE(r.forced);
  EXPECT_EQ(r.forced_token, mochten);
  EXPECT_FLOAT_EQ(r.forced_log_prob, r.expansions[0].log_probs[mochten]);
  EXPECT_LT(r.forced_log_prob, -1.0f) << "the model did not want 'mochten' here";
  s.run();
  const auto best = s.nbest()[0];
  EXPECT_EQ(best.tokens[1], mochten);
  EXPECT_EQ(s.detokenize(best.tokens).rfind("ich mochten", 0), 0u) << s.detokenize(best.tokens);
  // The score includes the forced token's log-probability.
  double sum = 0;
  for (const StepRecord& step : s.history())
    sum += step.forced ? step.forced_log_prob : step.expansions[0].log_probs[best.tokens[step.step]];
  EXPECT_NEAR(best.score, sum, 1e-9);

  EXPECT_THROW(s.force(model->tgt_vocab.size()), Error);  // done
  s.back();
  EXPECT_THROW(s.force(model->tgt_vocab.size()), IndexError);
  EXPECT_THROW(s.force(-1), IndexError);
  EXPECT_THROW(s.force(3, 1), IndexError);  // only one live hypothesis
}

TEST(Session, PrefixIsForcedFirst) {
  const auto model = load(kToy);
  DecodeOptions options;
  options.prefix = {model->tgt_vocab.id("wir", -1)};
  DecodeSession s(model, "i can eat apple", options);
  s.run();
  EXPECT_TRUE(s.history()[0].forced);
  EXPECT_FALSE(s.history()[1].forced);
  EXPECT_EQ(s.detokenize(s.nbest()[0].tokens), "wir konnen apfel essen");
}

TEST(Session, ForceInBeamCollapsesThenWidensAgain) {
  const auto model = load("tiny_post_sin");
  DecodeOptions options = beam(3);
  options.max_length = 6;
  DecodeSession s(model, "we can read book", options);
  s.step();
  s.step();
  EXPECT_EQ(s.live().size(), 3u);
  s.force(5, 2);
  EXPECT_EQ(s.live().size(), 1u);
  s.step();
  EXPECT_GT(s.live().size(), 1u);
  for (const Hypothesis& h : s.live()) EXPECT_EQ(h.tokens[2], 5);
}

TEST(Session, SamplingIsReproducibleBySeedAndVariesAcrossSeeds) {
  const auto model = load("deep_pre_sin_bpe");
  DecodeOptions o;
  o.strategy = Strategy::Sample;
  o.max_length = 12;
  o.temperature = 1.5;
  std::set<std::vector<int>> seen;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    o.seed = seed;
    const auto first = run(model, "A man in an orange hat.", o);
    EXPECT_EQ(first, run(model, "A man in an orange hat.", o)) << "seed " << seed;
    seen.insert(first);
  }
  EXPECT_GE(seen.size(), 3u);
  o.top_k = 1;  // top-1 sampling is greedy
  DecodeOptions greedy;
  greedy.max_length = 12;
  EXPECT_EQ(run(model, "A man in an orange hat.", o), run(model, "A man in an orange hat.", greedy));
}

TEST(Session, MaxLengthCutEndsCleanlyWithAFlag) {
  const auto model = load("deep_pre_sin_bpe");
  for (DecodeOptions o : {DecodeOptions{}, beam(3, 2)}) {
    o.max_length = 3;
    DecodeSession s(model, "Three people sit in a cave.", o);
    s.run();
    EXPECT_TRUE(s.done());
    EXPECT_LE(s.steps_taken(), 3);
    for (const FinishedHypothesis& h : s.nbest()) EXPECT_LE(h.tokens.size(), 3u);
    if (!s.nbest()[0].finished) EXPECT_TRUE(s.hit_max_length());
  }
  DecodeOptions relative;
  relative.max_length_a = 0.5;
  relative.max_length_b = 1;
  DecodeSession s(model, "Three people sit in a cave.", relative);  // 10 source tokens with </s>?
  s.run();
  EXPECT_LE(s.steps_taken(), static_cast<int>(0.5 * s.source().ids.size() + 1));
  EXPECT_EQ(s.max_length(), static_cast<int>(0.5 * s.source().ids.size() + 1));
}

TEST(Session, MinLengthForbidsEarlyEnd) {
  const auto model = load(kToy);
  DecodeOptions o;
  o.min_length = 7;
  o.max_length = 9;
  DecodeSession s(model, "i eat apple", o);
  s.run();
  EXPECT_GE(s.nbest()[0].tokens.size(), 7u);
}

TEST(Session, BeamTreeRecordsParentsAndStatuses) {
  const auto model = load("tiny_post_sin");
  DecodeOptions o = beam(3, 3);
  o.max_length = 6;
  DecodeSession s(model, "we can read book", o);
  s.run();
  const auto& tree = s.tree();
  ASSERT_GT(tree.size(), 1u);
  EXPECT_EQ(tree[0].parent, -1);
  int finished_or_cut = 0;
  for (std::size_t i = 1; i < tree.size(); ++i) {
    ASSERT_GE(tree[i].parent, 0);
    ASSERT_LT(tree[i].parent, static_cast<int>(i));
    EXPECT_EQ(tree[i].step, tree[tree[i].parent].step + 1);
    EXPECT_NEAR(tree[i].score, tree[tree[i].parent].score + tree[i].log_prob, 1e-9);
    finished_or_cut += tree[i].status == NodeStatus::Finished || tree[i].status == NodeStatus::Cut;
  }
  EXPECT_EQ(finished_or_cut, static_cast<int>(s.finished().size()));
  for (const FinishedHypothesis& h : s.nbest()) {
    // Walking up from the node spells the hypothesis.
    std::vector<int> spelled;
    for (int n = h.node; n > 0; n = tree[n].parent) spelled.insert(spelled.begin(), tree[n].token);
    EXPECT_EQ(spelled, h.tokens);
  }
}

TEST(Session, BadOptionsAreInputErrors) {
  const auto model = load(kToy);
  auto error = [&](DecodeOptions o) {
    try {
      DecodeSession(model, "i eat apple", o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  DecodeOptions o = beam(0);
  EXPECT_NE(error(o).find("beam_size"), std::string::npos);
  o = beam(2, 3);
  EXPECT_NE(error(o).find("nbest"), std::string::npos);
  o = {};
  o.temperature = 0;
  EXPECT_NE(error(o).find("temperature"), std::string::npos);
  o = {};
  o.top_p = 0;
  EXPECT_NE(error(o).find("top_p"), std::string::npos);
  o = {};
  o.prefix = {99999};
  EXPECT_THROW(DecodeSession(model, "i eat apple", o), IndexError);
}

}  // namespace
}  // namespace attnscope
