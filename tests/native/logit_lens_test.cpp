// The logit lens against the PyTorch reference (tests/golden/logit_lens/, written by
// models/goldens/make_logit_lens_goldens.py from a teacher-forced forward of attnscope_ref's
// transformer and GPT): per forced step and decoder layer, the top-k tokens, their
// probabilities and the forced token's probability and rank, pre- and post-norm. Then what the
// goldens cannot show: the last layer reads what the step itself predicted, captured residuals
// and a replay give the same bits, and a model without a lens or a bad k is refused. The CLI's
// --logit-lens prints the same readings in --json.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "analysis/logit_lens.h"
#include "decoding/session.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;

const char* const kGoldens[] = {"small_pre_learned", "deep_post_learned_f16", "decoder_only_pre_learned_gelu_tanh",
                                "decoder_only_post_sin_relu_untied"};

json golden(const std::string& name) { return testing::load_json(testing::golden_path("logit_lens/" + name + ".json")); }

std::shared_ptr<const Model> load(const json& g) {
  return Model::load_file(testing::golden_path(g["model"].get<std::string>()), {});
}

// A greedy session of `c`'s source with its continuation forced, one token a step.
std::unique_ptr<DecodeSession> forced_session(const std::shared_ptr<const Model>& model, const json& c,
                                              Capture capture = {}) {
  DecodeOptions o;
  o.capture = capture;
  o.max_length = static_cast<int>(c["forced"].size());
  auto session = std::make_unique<DecodeSession>(model, c["source"].get<std::string>(), o);
  for (int token : c["forced"]) session->force(token);
  return session;
}

void expect_matches(const json& want, const LogitLens& lens, const std::string& where) {
  ASSERT_EQ(lens.steps.size(), want["steps"].size()) << where;
  for (std::size_t s = 0; s < lens.steps.size(); ++s) {
    const json& ws = want["steps"][s];
    const LensStep& step = lens.steps[s];
    EXPECT_EQ(step.token, ws["token"].get<int>()) << where;
    ASSERT_EQ(step.layers.size(), ws["layers"].size()) << where;
    for (std::size_t l = 0; l < step.layers.size(); ++l) {
      const json& wl = ws["layers"][l];
      const LensLayer& layer = step.layers[l];
      const std::string at = where + " step " + std::to_string(s) + " layer " + std::to_string(l);
      std::vector<int> ids;
      std::vector<float> probs;
      for (const LensToken& t : layer.top) ids.push_back(t.id), probs.push_back(t.prob);
      EXPECT_EQ(ids, wl["top_ids"].get<std::vector<int>>()) << at;
      testing::expect_close(wl["top_probs"], probs.data(), probs.size(), {static_cast<int>(probs.size())}, at + " top");
      testing::expect_close(wl["chosen_prob"], &layer.chosen_prob, 1, {}, at + " chosen");
      EXPECT_EQ(layer.chosen_rank, wl["chosen_rank"].get<int>()) << at;
    }
  }
}

TEST(LogitLens, MatchesTheReferenceOnForcedSteps) {
  for (const char* name : kGoldens) {
    const json g = golden(name);
    const auto model = load(g);
    EXPECT_EQ(model->decoder().lens_layers(), g["layers"].get<int>()) << name;
    for (const json& c : g["cases"]) {
      const auto session = forced_session(model, c);
      // A decoder-only golden lists the prompt's tokens; the engine's own models read <bos> first.
      const bool prompt = model->family->input() == ModelFamily::Input::Prompt;
      EXPECT_EQ(session->source().ids, prompt ? testing::after_bos(model->config.special.bos, c["source_ids"])
                                              : c["source_ids"].get<std::vector<int>>())
          << name;
      expect_matches(c, logit_lens(*session, g["top_k"].get<int>()), name + (": " + c["source"].get<std::string>()));
    }
  }
}

TEST(LogitLens, LastLayerIsTheStepsOwnPrediction) {
  for (const char* name : kGoldens) {
    const json g = golden(name);
    const auto model = load(g);
    const json& c = g["cases"][0];
    const auto session = forced_session(model, c, {false, false, true});
    const LogitLens lens = logit_lens(*session, 4);
    for (std::size_t s = 0; s < lens.steps.size(); ++s) {
      const Expansion& e = session->expansion(static_cast<int>(s), 0);
      const LensLayer& last = lens.steps[s].layers.back();
      ASSERT_EQ(last.top.size(), e.top.size() < 4 ? e.top.size() : 4u);
      for (std::size_t k = 0; k < last.top.size(); ++k) {
        EXPECT_EQ(last.top[k].id, e.top[k].token) << name << " step " << s;
        EXPECT_EQ(last.top[k].prob, e.top[k].prob) << name << " step " << s;
      }
      const int chosen = lens.steps[s].token;
      EXPECT_EQ(last.chosen_prob, std::exp(e.log_probs[chosen])) << name << " step " << s;
    }
  }
}

TEST(LogitLens, CapturedResidualsAndReplayAgreeBitForBit) {
  for (const char* name : kGoldens) {
    const json g = golden(name);
    const auto model = load(g);
    const json& c = g["cases"][1];
    const LogitLens replayed = logit_lens(*forced_session(model, c), 5);
    const LogitLens captured = logit_lens(*forced_session(model, c, {false, true, false}), 5);
    ASSERT_EQ(replayed.steps.size(), captured.steps.size());
    for (std::size_t s = 0; s < replayed.steps.size(); ++s)
      for (std::size_t l = 0; l < replayed.steps[s].layers.size(); ++l) {
        const LensLayer &a = replayed.steps[s].layers[l], &b = captured.steps[s].layers[l];
        EXPECT_EQ(a.chosen_prob, b.chosen_prob) << name;
        EXPECT_EQ(a.chosen_rank, b.chosen_rank) << name;
        for (std::size_t k = 0; k < a.top.size(); ++k) {
          EXPECT_EQ(a.top[k].id, b.top[k].id) << name;
          EXPECT_EQ(a.top[k].prob, b.top[k].prob) << name;
          EXPECT_EQ(a.top[k].piece, model->tgt_vocab.token(a.top[k].id)) << name;
        }
      }
  }
}

TEST(LogitLens, FollowsTheBestHypothesisOfABeam) {
  const json g = golden("deep_post_learned_f16");
  const auto model = load(g);
  auto beam = [&](bool vectors) {
    DecodeOptions o;
    o.strategy = Strategy::Beam;
    o.beam_size = 3;
    o.max_length = 5;
    o.capture.vectors = vectors;
    auto session = std::make_unique<DecodeSession>(model, g["cases"][0]["source"].get<std::string>(), o);
    session->run();
    return session;
  };
  const auto plain = beam(false), captured = beam(true);
  const std::vector<int> best = plain->nbest().front().tokens;
  const LogitLens a = logit_lens(*plain, 3), b = logit_lens(*captured, 3);
  ASSERT_EQ(a.steps.size(), best.size());
  ASSERT_EQ(b.steps.size(), best.size());
  for (std::size_t s = 0; s < best.size(); ++s) {
    EXPECT_EQ(a.steps[s].token, best[s]);
    EXPECT_EQ(b.steps[s].token, best[s]);
    for (std::size_t l = 0; l < a.steps[s].layers.size(); ++l)
      EXPECT_EQ(a.steps[s].layers[l].chosen_prob, b.steps[s].layers[l].chosen_prob) << "step " << s << " layer " << l;
  }
}

TEST(LogitLens, FollowsTheStepsTakenSoFar) {
  const json g = golden("small_pre_learned");
  const auto model = load(g);
  const json& c = g["cases"][0];
  auto session = forced_session(model, c);
  const LogitLens all = logit_lens(*session, 2);
  session->back();
  session->back();
  const LogitLens fewer = logit_lens(*session, 2);
  ASSERT_EQ(fewer.steps.size(), all.steps.size() - 2);
  for (std::size_t s = 0; s < fewer.steps.size(); ++s)
    EXPECT_EQ(fewer.steps[s].layers.back().chosen_prob, all.steps[s].layers.back().chosen_prob);
}

// attnscope-cli's stdout for `args` (its exit status must be 0).
json cli_json(const std::string& args) {
  const std::string out = ::testing::TempDir() + "logit_lens_cli.json";
  const int status = std::system((std::string(ATTNSCOPE_CLI_PATH) + " " + args + " > " + out + " 2>/dev/null").c_str());
  EXPECT_EQ(status, 0) << args;
  const json j = testing::load_json(out);
  std::remove(out.c_str());
  return j;
}

TEST(LogitLens, CliPrintsItInJson) {
  for (const char* name : kGoldens) {
    const json g = golden(name);
    const json& c = g["cases"][1];  // a continuation without </s>: --prefix forces it all
    const std::string command = g["model"].get<std::string>().rfind("decoder_only/", 0) == 0 ? "generate" : "translate";
    std::string prefix;
    const auto model = load(g);
    for (int id : c["forced"]) prefix += (prefix.empty() ? "" : " ") + model->tgt_vocab.token(id);
    const json printed = cli_json(command + " --model " + testing::golden_path(g["model"].get<std::string>()) +
                                  " --max-length " + std::to_string(c["forced"].size()) + " --prefix '" + prefix +
                                  "' --logit-lens " + std::to_string(g["top_k"].get<int>()) + " '" +
                                  c["source"].get<std::string>() + "'");
    const json& lens = printed["logit_lens"];
    ASSERT_EQ(lens["layers"], g["layers"]) << name;
    LogitLens read;
    for (const json& step : lens["steps"]) {
      LensStep s;
      s.token = step["id"].get<int>();
      for (const json& layer : step["layers"]) {
        LensLayer l;
        for (const json& t : layer["top"]) l.top.push_back({t["id"].get<int>(), t["piece"].get<std::string>(), t["p"].get<float>()});
        l.chosen_prob = layer["chosen"]["p"].get<float>();
        l.chosen_rank = layer["chosen"]["rank"].get<int>();
        s.layers.push_back(l);
      }
      read.steps.push_back(s);
    }
    expect_matches(c, read, std::string("CLI ") + name);
  }
}

TEST(LogitLens, RefusesAModelWithoutALensAndABadK) {
  DecodeOptions o;
  o.max_length = 2;
  auto rnn = Model::load_file(testing::golden_path("rnn/gru_bahdanau_additive.safetensors"), {});
  EXPECT_EQ(rnn->decoder().lens_layers(), 0);
  DecodeSession recurrent(rnn, "i can eat apple", o);
  recurrent.step();
  try {
    logit_lens(recurrent, 3);
    FAIL() << "an RNN has no logit lens";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no logit lens"), std::string::npos) << e.what();
  }

  const json g = golden("small_pre_learned");
  DecodeSession session(load(g), g["cases"][0]["source"].get<std::string>(), o);
  session.step();
  EXPECT_THROW(logit_lens(session, 0), InputError);
  EXPECT_THROW(logit_lens(session, 2, {4, 5}), InputError);  // two tokens, one step taken
  EXPECT_THROW(logit_lens(session, 2, {100000}), IndexError);
}

}  // namespace
}  // namespace attnscope
