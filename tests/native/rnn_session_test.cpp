// An RNN model through the unchanged DecodeSession: greedy = beam 1, back() then step() repeats
// a step bit for bit (greedy, beam, sampling), force() and a forced prefix agree, sampling is
// reproducible; its interventions, and the ones it refuses with a reason.
#include <gtest/gtest.h>

#include <functional>

#include "analysis/session_analysis.h"
#include "analysis/vectors.h"
#include "decoding/session.h"
#include "families/rnn/rnn.h"
#include "io/safetensors.h"
#include "test_support.h"

namespace attnscope {
namespace {

std::shared_ptr<const Model> load(const std::string& name) {
  return Model::load_file(testing::golden_path("rnn/" + name + ".safetensors"));
}

// One model per style and cell, with local-p, input feeding, stacked and bidirectional encoders.
const char* const kModels[] = {"gru_bahdanau_additive", "lstm_luong_dot_feed_local", "gru_luong_general",
                               "lstm_bahdanau_general_local", "gru_none", "lstm_none"};
const char* const kSentences[] = {"i can eat apple", "we want to drink beer"};

DecodeOptions beam(int k, int nbest = 1) {
  DecodeOptions o;
  o.strategy = Strategy::Beam;
  o.beam_size = k;
  o.nbest = nbest;
  o.max_length = 8;
  return o;
}

TEST(RnnSession, GreedyEqualsBeamOfWidthOne) {
  for (const char* name : kModels) {
    const auto model = load(name);
    for (const char* text : kSentences) {
      DecodeOptions greedy;
      greedy.max_length = 8;
      DecodeSession g(model, text, greedy), b(model, text, beam(1));
      g.run();
      b.run();
      EXPECT_EQ(g.nbest().at(0).tokens, b.nbest().at(0).tokens) << name << ": " << text;
      EXPECT_EQ(g.nbest().at(0).score, b.nbest().at(0).score) << name << ": " << text;
    }
  }
}

// Returns how many expansions it stepped again.
int expect_back_then_step_repeats(const std::shared_ptr<const Model>& model, DecodeOptions options) {
  options.capture = {true, true, true};
  options.max_length = 8;
  DecodeSession reference(model, "we want to drink beer", options);
  reference.run();
  DecodeSession s(model, "we want to drink beer", options);
  int checked = 0;
  while (!s.done()) {
    const int depth = s.steps_taken();
    const StepRecord first = s.step();
    if (s.done()) break;
    for (int i = 0; i < std::min(2, depth + 1); ++i) s.back();
    StepRecord again;
    while (s.steps_taken() <= depth) again = s.step();
    EXPECT_EQ(again.expansions.size(), first.expansions.size());
    if (again.expansions.size() != first.expansions.size()) return checked;
    for (std::size_t e = 0; e < first.expansions.size(); ++e) {
      EXPECT_EQ(again.expansions[e].logits, first.expansions[e].logits) << "step " << first.step;
      EXPECT_EQ(again.expansions[e].trace.attention.size(), first.expansions[e].trace.attention.size());
      if (again.expansions[e].trace.attention.size() != first.expansions[e].trace.attention.size()) return checked;
      for (std::size_t site = 0; site < first.expansions[e].trace.attention.size(); ++site)
        EXPECT_EQ(again.expansions[e].trace.attention[site].data, first.expansions[e].trace.attention[site].data);
      EXPECT_EQ(again.expansions[e].trace.vectors.at("hidden"), first.expansions[e].trace.vectors.at("hidden"));
      ++checked;
    }
  }
  EXPECT_EQ(s.nbest().size(), reference.nbest().size());
  for (std::size_t i = 0; i < std::min(s.nbest().size(), reference.nbest().size()); ++i) {
    EXPECT_EQ(s.nbest()[i].tokens, reference.nbest()[i].tokens);
    EXPECT_EQ(s.nbest()[i].score, reference.nbest()[i].score);
  }
  return checked;
}

TEST(RnnSession, BackThenStepRepeatsGreedyBeamAndSampling) {
  for (const char* name : kModels) {
    SCOPED_TRACE(name);
    const auto model = load(name);
    EXPECT_GE(expect_back_then_step_repeats(model, {}), 4);  // greedy runs to the limit of 8
    EXPECT_GE(expect_back_then_step_repeats(model, beam(3, 2)), 4);
    DecodeOptions sample;
    sample.strategy = Strategy::Sample;
    sample.seed = 7;
    expect_back_then_step_repeats(model, sample);  // may draw </s> at once
  }
}

TEST(RnnSession, BeamStepsTheWholeBeamAndRanksItsHypotheses) {
  const auto model = load("lstm_luong_dot_feed_local");
  DecodeSession b(model, "i can eat apple", beam(4, 3));
  b.run();
  ASSERT_EQ(b.nbest().size(), 3u);
  for (std::size_t i = 1; i < b.nbest().size(); ++i) EXPECT_GE(b.nbest()[i - 1].normalized_score, b.nbest()[i].normalized_score);
  EXPECT_EQ(b.history().at(1).expansions.size(), 4u);
}

TEST(RnnSession, ForceEqualsAForcedPrefixAndScoresTheToken) {
  for (const char* name : kModels) {
    SCOPED_TRACE(name);
    const auto model = load(name);
    DecodeOptions options;
    options.capture.logits = true;
    options.max_length = 6;
    DecodeSession forced(model, "i can eat apple", options);
    const int token = model->tgt_vocab.id("brot", -1);
    ASSERT_GE(token, 0);
    const StepRecord& r = forced.force(token);
    EXPECT_EQ(r.forced_log_prob, r.expansions[0].log_probs[token]);
    const StepRecord after_force = forced.step();

    DecodeOptions with_prefix = options;
    with_prefix.prefix = {token};
    DecodeSession prefixed(model, "i can eat apple", with_prefix);
    prefixed.step();
    const StepRecord after_prefix = prefixed.step();
    EXPECT_EQ(after_force.expansions[0].logits, after_prefix.expansions[0].logits);
  }
}

TEST(RnnSession, SamplingIsReproducibleBySeed) {
  const auto model = load("gru_luong_general");
  DecodeOptions o;
  o.strategy = Strategy::Sample;
  o.seed = 3;
  o.max_length = 8;
  DecodeSession a(model, "we want to drink beer", o), b(model, "we want to drink beer", o);
  a.run();
  b.run();
  EXPECT_EQ(a.nbest().at(0).tokens, b.nbest().at(0).tokens);
}

TEST(RnnSession, SiteTableHasOneMapOfOneHead) {
  const auto model = load("gru_bahdanau_additive");
  ASSERT_EQ(model->sites().size(), 1u);
  const AttentionSiteInfo& site = model->sites()[0];
  EXPECT_EQ(site.name, "cross");
  EXPECT_EQ(site.layers, 1);
  EXPECT_EQ(site.heads, 1);
  EXPECT_TRUE(site.per_step);
  EXPECT_EQ(site.queries, Side::Target);
  EXPECT_EQ(site.keys, Side::Source);
  EXPECT_TRUE(load("gru_none")->sites().empty());
}

// The RNN's score has no per-head q/k/v projections: the analyses that need them refuse the site
// with that reason (not "vectors were not captured"), and the session goes on.
TEST(RnnSession, AnalysesThatNeedQueryKeyValuesRefuseItsSite) {
  const auto model = load("gru_bahdanau_additive");
  EXPECT_EQ(model->family->attention_layer(0, 0), nullptr);
  DecodeOptions o;
  o.capture = {true, true, true};
  DecodeSession s(model, "i can eat apple", o);
  s.step();
  const auto refuses = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const InputError& e) {
      return std::string(e.what()).find("attention site 'cross' has no query/key/value vectors") != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(refuses([&] { value_weighted_attention(s, "cross", 0); }));
  EXPECT_TRUE(refuses([&] { attention_logits(s, "cross", 0, 0, 0, 0); }));
  EXPECT_EQ(s.step().step, 1);
}

// ---------------------------------------------------------------------------- interventions

StepRecord first_step(const std::shared_ptr<const Model>& model, const Interventions& iv, EncoderTrace* enc = nullptr) {
  DecodeOptions o;
  o.capture = {true, true, true};
  o.interventions = iv;
  DecodeSession s(model, "we want to drink beer", o);
  const StepRecord r = s.step();
  if (enc) *enc = s.encoder_trace();
  return r;
}

TEST(RnnInterventions, AttentionOverridesReplaceTheWeightsAndTheContext) {
  for (const char* name : {"gru_bahdanau_additive", "lstm_luong_dot_feed_local"}) {
    SCOPED_TRACE(name);
    const auto model = load(name);
    const StepRecord plain = first_step(model, {});
    for (HeadEdit::Pattern pattern : {HeadEdit::Pattern::Uniform, HeadEdit::Pattern::Beginning, HeadEdit::Pattern::End}) {
      Interventions iv;
      iv.attention.push_back({"cross", -1, -1, pattern, {}});
      EncoderTrace enc;
      const StepRecord r = first_step(model, iv, &enc);
      const Tensor& a = r.expansions[0].trace.attention[rnn::kAttention];
      const int S = a.shape.back();
      const RowVector want = HeadEdit{false, true, pattern, {}}.weights_for(0, S);
      for (int j = 0; j < S; ++j) EXPECT_FLOAT_EQ(a.data[j], want[j]);
      const RowVector ctx = want * enc.vectors.at("states");
      const Matrix& got = r.expansions[0].trace.vectors.at("context");
      for (int k = 0; k < ctx.size(); ++k) EXPECT_NEAR(got(0, k), ctx[k], 1e-6);
      EXPECT_NE(r.expansions[0].logits, plain.expansions[0].logits);
    }
    Interventions custom;
    custom.attention.push_back({"", 0, 0, HeadEdit::Pattern::Custom, {{1, 0, 0, 0, 0, 1}}});
    const StepRecord r = first_step(model, custom);
    const Tensor& a = r.expansions[0].trace.attention[rnn::kAttention];
    EXPECT_EQ(a.data, (std::vector<float>{0.5f, 0, 0, 0, 0, 0.5f}));
  }
}

TEST(RnnInterventions, NoAttentionAndLastStateOnlyReplaceTheContext) {
  for (const char* name : {"gru_bahdanau_additive", "lstm_luong_dot_feed_local", "gru_none"}) {
    SCOPED_TRACE(name);
    const auto model = load(name);
    EncoderTrace enc;
    Interventions mean;
    mean.copy_source_encoding = true;
    const StepRecord m = first_step(model, mean, &enc);
    const RowVector want_mean = enc.vectors.at("states").colwise().mean();
    EXPECT_TRUE(m.expansions[0].trace.vectors.at("context").isApprox(Matrix(want_mean), 1e-6f));
    Interventions last;
    last.last_source_state = true;
    const StepRecord l = first_step(model, last, &enc);
    EXPECT_EQ(l.expansions[0].trace.vectors.at("context"), enc.vectors.at("final"));
  }
  // A model without attention is fed the encoder's final state: "last state only" changes nothing.
  const auto none = load("gru_none");
  Interventions last;
  last.last_source_state = true;
  EXPECT_EQ(first_step(none, last).expansions[0].logits, first_step(none, {}).expansions[0].logits);
}

void expect_refused(const std::shared_ptr<const Model>& model, const Interventions& iv, const std::string& why) {
  DecodeOptions o;
  o.interventions = iv;
  try {
    DecodeSession s(model, "we want to drink beer", o);
    ADD_FAILURE() << "accepted an intervention that should be refused (" << why << ")";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

TEST(RnnInterventions, WhatDoesNotApplyIsRefusedWithAReason) {
  const auto model = load("gru_bahdanau_additive");
  Interventions mask;
  mask.masked_heads.push_back({"cross", 0, 0});
  expect_refused(model, mask, "single head");
  Interventions ffn;
  ffn.skip_ffn = true;
  expect_refused(model, ffn, "no feed-forward");
  Interventions ln;
  ln.skip_layer_norm = true;
  expect_refused(model, ln, "no LayerNorm");
  Interventions self;
  self.skip_decoder_self_attention = true;
  expect_refused(model, self, "no self-attention");
  Interventions override_none;
  override_none.attention.push_back({"", -1, -1, HeadEdit::Pattern::Uniform, {}});
  expect_refused(load("gru_none"), override_none, "no attention from the target to the source");
  // The transformer has no single final encoder state.
  Interventions last;
  last.last_source_state = true;
  expect_refused(Model::load_file(testing::golden_path("tiny_post_sin.safetensors")), last, "final encoder state");
}

// ---------------------------------------------------------------------------- the file

// An RNN golden file with its config edited (the data section unchanged); the load error.
std::string load_error_with_config(const std::string& name, const std::function<void(testing::json&)>& edit) {
  const std::vector<std::uint8_t> b = read_file_bytes(testing::golden_path("rnn/" + name + ".safetensors"));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[i];
  testing::json h = testing::json::parse(b.begin() + 8, b.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  testing::json c = testing::json::parse(h["__metadata__"]["config"].get<std::string>());
  edit(c);
  h["__metadata__"]["config"] = c.dump();
  const std::string text = h.dump();
  std::vector<std::uint8_t> out(8);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(text.size()) >> (8 * i));
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), b.begin() + 8 + static_cast<std::ptrdiff_t>(n), b.end());
  try {
    Model::load_bytes(out.data(), out.size());
  } catch (const ModelFileError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the edited file loaded";
  return "";
}

TEST(RnnModelFile, BadConfigsAreLoadErrorsNamingTheField) {
  using testing::json;
  auto expect = [](const std::string& message, const std::string& fragment) {
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  };
  expect(load_error_with_config("gru_bahdanau_additive", [](json& c) { c["cell"] = "rnn"; }), "'cell' must be one of");
  expect(load_error_with_config("gru_bahdanau_additive", [](json& c) { c["score"] = "bilinear"; }),
         "'score' must be one of");
  expect(load_error_with_config("gru_bahdanau_additive", [](json& c) { c.erase("d_hidden"); }),
         "'d_hidden' is missing");
  expect(load_error_with_config("gru_bahdanau_additive", [](json& c) { c["d_attention"] = 0; }), "d_attention");
  expect(load_error_with_config("gru_bahdanau_dot", [](json& c) { c["d_hidden"] = 5; }), "must be equal");
  expect(load_error_with_config("gru_bahdanau_additive", [](json& c) { c["input_feeding"] = true; }), "Luong");
  // A config that disagrees with the tensors: the shapes say which.
  expect(load_error_with_config("gru_bahdanau_additive", [](json& c) { c["cell"] = "lstm"; }), "has shape");
  expect(load_error_with_config("gru_bahdanau_additive", [](json& c) { c["d_attention"] = 3; }), "has shape");
  expect(load_error_with_config("gru_bahdanau_additive", [](json& c) { c["attention"] = "luong"; }), "has shape");
  // Luong's location score: W_a has a row per source position, so the config's max_positions
  // must be there and agree with it; it has no additive hidden layer.
  expect(load_error_with_config("gru_luong_location_feed", [](json& c) { c.erase("max_positions"); }),
         "'max_positions' is missing");
  expect(load_error_with_config("gru_luong_location_feed", [](json& c) { c["max_positions"] = 20; }),
         "attention.location_proj.weight");
  expect(load_error_with_config("gru_bahdanau_location", [](json& c) { c["d_attention"] = 4; }), "d_attention");
  expect(load_error_with_config("gru_bahdanau_location", [](json& c) { c["score"] = "locative"; }),
         "'score' must be one of");
}

}  // namespace
}  // namespace attnscope
