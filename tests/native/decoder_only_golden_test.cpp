// The decoder-only family against gpt.py's full forward (tests/golden/decoder_only/, written by
// models/goldens/make_decoder_only_goldens.py): every step's logits and attention, the greedy
// continuation, the beam's n-best and a head mask, through the unchanged DecodeSession. Then
// what the goldens cannot show: back() repeats a step bit for bit, a batch of hypotheses gives
// each the bits of a batch of one, and the errors of a bad prompt, a full context and a config
// this family does not read.
#include <gtest/gtest.h>

#include <functional>

#include "analysis/session_analysis.h"
#include "analysis/vectors.h"
#include "decoding/session.h"
#include "families/decoder_only/decoder_only.h"
#include "io/safetensors.h"
#include "model/seq2seq.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;

const char* const kModels[] = {"pre_learned_gelu_tanh", "post_sin_relu_untied", "attention_only_gelu"};

std::string model_path(const std::string& name) { return testing::golden_path("decoder_only/" + name + ".safetensors"); }
json golden(const std::string& name) { return testing::load_json(testing::golden_path("decoder_only/" + name + ".json")); }

DecodeOptions capturing(int max_length) {
  DecodeOptions o;
  o.capture = {true, false, true};
  o.max_length = max_length;
  return o;
}

// Runs a greedy session and compares each step with the golden's steps and tokens.
void expect_greedy_matches(const std::shared_ptr<const Model>& model, const json& c, const json& want,
                           const Interventions& interventions, const std::string& what) {
  DecodeOptions o = capturing(c["max_steps"].get<int>());
  o.interventions = interventions;
  DecodeSession s(model, c["prompt"].get<std::string>(), o);
  EXPECT_EQ(s.source().ids, testing::after_bos(model->config.special.bos, c["prompt_ids"])) << what;
  EXPECT_TRUE(s.source().bos) << what;
  s.run();
  const json& steps = want["steps"];
  ASSERT_EQ(s.steps_taken(), static_cast<int>(steps.size())) << what;
  for (int t = 0; t < s.steps_taken(); ++t) {
    const Expansion& e = s.expansion(t, 0);
    const std::string at = what + " step " + std::to_string(t);
    testing::expect_close(steps[t]["logits"], e.logits.data(), e.logits.size(), {static_cast<int>(e.logits.size())},
                          at + " logits");
    if (steps[t].contains("attention")) {
      const Tensor& a = e.trace.attention.at(decoder_only::kSelf);
      testing::expect_close(steps[t]["attention"], a.data.data(), a.data.size(), a.shape, at + " attention");
    }
  }
  EXPECT_EQ(s.nbest().at(0).tokens, want["tokens"].get<std::vector<int>>()) << what;
}

TEST(DecoderOnlyGolden, GreedyStepsMatchTheReference) {
  for (const char* name : kModels) {
    const auto model = Model::load_file(model_path(name));
    EXPECT_EQ(model->sites().size(), 1u);
    const json cases = golden(name)["cases"];  // kept: a range-for over a temporary's member dangles
    for (const json& c : cases)
      expect_greedy_matches(model, c, c["greedy"], {}, std::string(name) + " '" + c["prompt"].get<std::string>() + "'");
  }
  std::printf("decoder-only goldens: max |diff| %.3g\n", testing::max_abs_diff_seen());
}

TEST(DecoderOnlyGolden, AHeadMaskMatchesTheReferenceAndChangesTheLogits) {
  for (const char* name : kModels) {
    const auto model = Model::load_file(model_path(name));
    const json cases = golden(name)["cases"];  // kept: a range-for over a temporary's member dangles
    for (const json& c : cases) {
      const json& masked = c["masked"];
      Interventions iv;
      iv.masked_heads.push_back({"self", masked["layer"].get<int>(), masked["head"].get<int>()});
      const std::string what = std::string(name) + " masked '" + c["prompt"].get<std::string>() + "'";
      expect_greedy_matches(model, c, masked, iv, what);
      // The golden's two decodes differ where the head mattered: at the first step.
      std::vector<float> plain = c["greedy"]["steps"][0]["logits"].get<std::vector<float>>();
      const json& off = masked["steps"][0]["logits"];
      double worst = 0.0;
      std::size_t at = 0;
      const std::vector<float> off_values = off.get<std::vector<float>>();
      ASSERT_TRUE(testing::max_abs_difference(plain.data(), off_values.data(), plain.size(), what, worst, at));
      EXPECT_GT(worst, 1e-3) << what;
    }
  }
}

TEST(DecoderOnlyGolden, BeamNbestMatchesTheReference) {
  for (const char* name : kModels) {
    const auto model = Model::load_file(model_path(name));
    const json cases = golden(name)["cases"];  // kept: a range-for over a temporary's member dangles
    for (const json& c : cases) {
      const json& b = c["beam"];
      DecodeOptions o;
      o.strategy = Strategy::Beam;
      o.beam_size = b["beam_size"].get<int>();
      o.nbest = b["nbest"].get<int>();
      o.max_length = b["max_length"].get<int>();
      DecodeSession s(model, c["prompt"].get<std::string>(), o);
      s.run();
      const std::vector<FinishedHypothesis> got = s.nbest();
      const json& want = b["nbest_results"];
      const std::string what = std::string(name) + " beam '" + c["prompt"].get<std::string>() + "'";
      ASSERT_EQ(got.size(), want.size()) << what;
      for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].tokens, want[i]["tokens"].get<std::vector<int>>()) << what << " #" << i;
        EXPECT_NEAR(got[i].score, want[i]["score"].get<double>(), testing::kTolerance) << what << " #" << i;
      }
    }
  }
}

// back() then step() gives the same logits and attention, back to the first step (the prompt
// pending again) and within a beam (clone + truncate).
TEST(DecoderOnlySession, BackThenStepRepeatsBitForBit) {
  const auto model = Model::load_file(model_path("pre_learned_gelu_tanh"));
  for (Strategy strategy : {Strategy::Greedy, Strategy::Beam}) {
    DecodeOptions o = capturing(5);
    o.strategy = strategy;
    o.beam_size = 3;
    DecodeSession s(model, "we can eat apple and", o);
    int checked = 0;
    while (!s.done()) {
      const StepRecord first = s.step();
      if (s.done()) break;
      s.back();
      const StepRecord again = s.step();
      ASSERT_EQ(again.expansions.size(), first.expansions.size());
      for (std::size_t e = 0; e < first.expansions.size(); ++e) {
        EXPECT_EQ(again.expansions[e].logits, first.expansions[e].logits) << "step " << first.step;
        EXPECT_EQ(again.expansions[e].trace.attention.at(0).data, first.expansions[e].trace.attention.at(0).data);
        ++checked;
      }
    }
    EXPECT_GE(checked, 4);
  }
}

// Three hypotheses stepped in one batch get the bits each gets alone.
TEST(DecoderOnlySession, BatchOfHypothesesEqualsBatchesOfOne) {
  for (const char* name : kModels) {
    const auto model = Model::load_file(model_path(name));
    const Decoder& decoder = model->decoder();
    const Matrix memory = encode(*model, {model->config.special.bos, 5, 6, 7}, Capture{}, nullptr);
    const std::unique_ptr<DecoderState> root = decoder.start(memory);
    decode_step(*model, *root, model->config.special.bos, Capture{}, nullptr);
    std::vector<std::unique_ptr<DecoderState>> batch, alone;
    for (int i = 0; i < 3; ++i) batch.push_back(root->clone()), alone.push_back(root->clone());
    const Capture capture{true, false, false};
    std::vector<StepTrace> batch_traces(3), alone_traces(3);
    const std::vector<int> tokens = {8, 9, 10};
    const Matrix together = decode_steps(*model, {batch[0].get(), batch[1].get(), batch[2].get()}, tokens, capture,
                                         {&batch_traces[0], &batch_traces[1], &batch_traces[2]});
    for (int i = 0; i < 3; ++i) {
      const Matrix one = decode_step(*model, *alone[i], tokens[i], capture, &alone_traces[i]);
      EXPECT_TRUE(one.row(0) == together.row(i)) << name << " hypothesis " << i;
      EXPECT_EQ(batch_traces[i].attention.at(0).data, alone_traces[i].attention.at(0).data) << name;
      EXPECT_EQ(batch_traces[i].attention.at(0).shape, (std::vector<int>{model->sites()[0].layers,
                                                                        model->sites()[0].heads, 5}));
    }
  }
}

// The uniform pattern on the causal site: row t of the first step's map is 1/(t+1) over keys 0..t.
TEST(DecoderOnlySession, UniformAttentionIsUniformOverTheCausalPrefix) {
  const auto model = Model::load_file(model_path("attention_only_gelu"));
  DecodeOptions o = capturing(2);
  AttentionOverride uniform;
  uniform.site = "self";
  o.interventions.attention.push_back(uniform);
  DecodeSession s(model, "i want to", o);
  s.step();
  const Tensor& a = s.expansion(0, 0).trace.attention.at(0);
  ASSERT_EQ(a.shape.size(), 4u);
  const int T = a.shape[2];
  EXPECT_EQ(T, 4);  // <bos> and three prompt tokens
  for (int lh = 0; lh < a.shape[0] * a.shape[1]; ++lh)
    for (int q = 0; q < T; ++q)
      for (int k = 0; k < T; ++k)
        EXPECT_FLOAT_EQ(a.data[(static_cast<std::size_t>(lh) * T + q) * T + k], k <= q ? 1.0f / (q + 1) : 0.0f);
}

// The analyses that read q, k and v see the whole context: softmax(attention logits) of the
// position a step predicts from is its attention row, and value-weighted attention has its shape.
TEST(DecoderOnlySession, AttentionLogitsAndValueWeightingSeeTheWholeContext) {
  const auto model = Model::load_file(model_path("pre_learned_gelu_tanh"));
  DecodeOptions o = capturing(3);
  o.capture.vectors = true;
  DecodeSession s(model, "i want to", o);
  s.run();
  for (int step = 0; step < s.steps_taken(); ++step) {
    const Tensor& a = s.expansion(step, 0).trace.attention.at(0);
    const int K = a.shape.back(), H = a.shape[1];
    EXPECT_EQ(K, 4 + step);  // <bos>, three prompt tokens, then one a step
    for (int layer = 0; layer < a.shape[0]; ++layer)
      for (int head = 0; head < H; ++head) {
        const RowVector logits = attention_logits(s, "self", layer, head, 0, step, 0);
        ASSERT_EQ(logits.size(), K);
        const RowVector weights = (logits.array() - logits.maxCoeff()).exp().matrix();
        // The last row of this layer and head's map.
        const float* row = a.data.data() + (static_cast<std::size_t>(layer) * H + head + 1) *
                                               (a.shape.size() == 4 ? a.shape[2] * K : K) - K;
        for (int k = 0; k < K; ++k) EXPECT_NEAR(weights[k] / weights.sum(), row[k], 1e-5) << "step " << step;
      }
    EXPECT_EQ(value_weighted_attention(s, "self", step, 0).shape, a.shape);
  }
}

template <class E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(DecoderOnlyErrors, BadPromptsAndAFullContext) {
  const auto model = Model::load_file(model_path("pre_learned_gelu_tanh"));  // a context of 16
  const int context = model->config.max_positions;
  const int bos = model->config.special.bos;
  EXPECT_NE(error_of<InputError>([&] { encode(*model, {}, Capture{}, nullptr); }).find("prompt is empty"),
            std::string::npos);
  std::vector<int> long_prompt(context + 1, 5);
  EXPECT_EQ(error_of<InputError>([&] { encode(*model, long_prompt, Capture{}, nullptr); }),
            "prompt of 17 tokens exceeds the model's context of 16");
  long_prompt[0] = bos;
  EXPECT_EQ(error_of<InputError>([&] { encode(*model, long_prompt, Capture{}, nullptr); }),
            "prompt of 17 tokens (with <bos>) exceeds the model's context of 16");
  EXPECT_THROW(encode(*model, {5, 99999}, Capture{}, nullptr), IndexError);

  // A prompt of P tokens as read (<bos> counted) leaves room for context - P + 1 steps: the
  // prompt at once, then one a step, the last token never fed.
  const int P = 10;
  std::vector<int> prompt(P, 5);
  prompt[0] = bos;
  const auto state = model->decoder().start(encode(*model, prompt, Capture{}, nullptr));
  for (int step = 0; step < context - P + 1; ++step) decode_step(*model, *state, step == 0 ? bos : 6, Capture{}, nullptr);
  EXPECT_EQ(state->length(), context - P + 1);
  EXPECT_NE(error_of<InputError>([&] { decode_step(*model, *state, 6, Capture{}, nullptr); }).find("context"),
            std::string::npos);
  state->truncate(0);  // the prompt is pending again
  EXPECT_EQ(state->length(), 0);
  decode_step(*model, *state, model->config.special.bos, Capture{}, nullptr);
  EXPECT_EQ(state->length(), 1);
}

TEST(DecoderOnlyErrors, RefusedInterventionsSayWhy) {
  const auto model = Model::load_file(model_path("pre_learned_gelu_tanh"));
  DecodeOptions o;
  o.interventions.skip_cross_attention = true;
  EXPECT_NE(error_of<InputError>([&] { DecodeSession(model, "i want", o); }).find("no encoder"), std::string::npos);
  o = DecodeOptions{};
  o.interventions.copy_source_encoding = true;
  EXPECT_THROW(DecodeSession(model, "i want", o), InputError);
  o = DecodeOptions{};
  o.interventions.skip_ffn = true;  // applies: a model without its FFNs
  DecodeSession s(model, "i want", o);
  s.step();
}

// The file's header with its config edited; the data section as it was.
std::vector<std::uint8_t> with_config(const std::string& name, const std::function<void(json&)>& edit) {
  const std::vector<std::uint8_t> b = read_file_bytes(model_path(name));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[static_cast<std::size_t>(i)];
  json header = json::parse(b.begin() + 8, b.begin() + 8 + static_cast<std::ptrdiff_t>(n));
  json config = json::parse(header["__metadata__"]["config"].get<std::string>());
  edit(config);
  header["__metadata__"]["config"] = config.dump();
  const std::string text = header.dump();
  std::vector<std::uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(text.size() >> (8 * i)));
  for (char ch : text) out.push_back(static_cast<std::uint8_t>(ch));
  out.insert(out.end(), b.begin() + 8 + static_cast<std::ptrdiff_t>(n), b.end());
  return out;
}

std::string load_error(const std::vector<std::uint8_t>& bytes) {
  return error_of<ModelFileError>([&] { Model::load_bytes(bytes.data(), bytes.size()); });
}

TEST(DecoderOnlyErrors, ConfigsItDoesNotReadNameTheField) {
  const char* name = "pre_learned_gelu_tanh";
  EXPECT_NE(load_error(with_config(name, [](json& c) { c["rotary_dim"] = 4; })).find("'rotary_dim'"), std::string::npos);
  EXPECT_NE(load_error(with_config(name, [](json& c) { c["cross_attention"] = true; })).find("'cross_attention'"),
            std::string::npos);
  EXPECT_NE(load_error(with_config(name, [](json& c) { c["positions"] = "alibi"; })).find("'positions'"),
            std::string::npos);
  EXPECT_NE(load_error(with_config(name, [](json& c) { c["activation"] = "swish"; })).find("'activation'"),
            std::string::npos);
  EXPECT_NE(load_error(with_config(name, [](json& c) { c.erase("d_ff"); })).find("'d_ff'"), std::string::npos);
  EXPECT_NE(load_error(with_config(name, [](json& c) { c["src_append_eos"] = true; })).find("'src_append_eos'"),
            std::string::npos);
  // d_ff > 0 names FFN tensors the attention-only file does not have.
  EXPECT_NE(load_error(with_config("attention_only_gelu", [](json& c) { c["d_ff"] = 8; })).find("ffn"),
            std::string::npos);
}

}  // namespace
}  // namespace attnscope
