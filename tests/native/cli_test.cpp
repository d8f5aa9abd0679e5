// attnscope-cli run as a separate process, as benchmarks and evaluation scripts will run it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;

struct Result {
  int status;
  std::string out;
};

Result run_cli(const std::string& args) {
  const std::string command = std::string(ATTNSCOPE_CLI_PATH) + " " + args + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  std::string out;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0, nl;
  while ((nl = text.find('\n', pos)) != std::string::npos) {
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

class CliGolden : public ::testing::TestWithParam<std::string> {};

// The CLI's greedy output equals the PyTorch reference's, token for token.
TEST_P(CliGolden, JsonOutputMatchesReferenceTokens) {
  const json g = testing::load_json(testing::golden_path(GetParam() + ".json"));
  const std::string model = testing::golden_path(g["model"]);
  for (const json& c : g["cases"]) {
    const Result r = run_cli("translate --json --max-steps " + std::to_string(c["max_steps"].get<int>()) +
                             " --model " + model + " " + quoted(c["source"]));
    ASSERT_EQ(r.status, 0);
    const json j = json::parse(r.out);
    EXPECT_EQ(j["output_ids"], c["output_ids"]);
    EXPECT_EQ(j["translation"], c["output_text"]);
    EXPECT_EQ(j["source_tokens"], c["src_tokens"]);
    ASSERT_EQ(j["steps"].size(), c["steps"].size());
    // Top-1 of every step is the token the reference chose.
    for (std::size_t i = 0; i < j["steps"].size(); ++i)
      EXPECT_EQ(j["steps"][i]["expansions"][0]["top_k"][0]["id"], c["steps"][i]["output_id"]);
  }
}

TEST_P(CliGolden, InputFileGivesOneLinePerSentenceInOrder) {
  const json g = testing::load_json(testing::golden_path(GetParam() + ".json"));
  const std::string path = ::testing::TempDir() + "/attnscope_cli_input.txt";
  {
    std::ofstream f(path);
    for (const json& c : g["cases"]) f << c["source"].get<std::string>() << "\n";
    f << "\n";  // an empty line: reported, and keeps its (empty) output line
    f << g["cases"][0]["source"].get<std::string>() << "\n";
  }
  const int steps = g["cases"][0]["max_steps"];
  const Result r = run_cli("translate --max-steps " + std::to_string(steps) + " --model " +
                           testing::golden_path(g["model"]) + " --input " + path);
  EXPECT_EQ(r.status, 3) << "a failed line is signalled in the exit status";
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), g["cases"].size() + 2);
  for (std::size_t i = 0; i < g["cases"].size(); ++i) EXPECT_EQ(out[i], g["cases"][i]["output_text"]);
  EXPECT_EQ(out[g["cases"].size()], "");
  EXPECT_EQ(out.back(), g["cases"][0]["output_text"]);
}

INSTANTIATE_TEST_SUITE_P(Models, CliGolden, ::testing::Values("tiny_post_sin", "deep_pre_sin_bpe"));

TEST(Cli, BadUsageAndBadModelFail) {
  EXPECT_EQ(run_cli("").status, 2);
  EXPECT_EQ(run_cli("translate 'i eat'").status, 2);
  EXPECT_EQ(run_cli("translate --model /nonexistent 'i eat'").status, 2);
  EXPECT_EQ(run_cli("translate --model " + testing::golden_path("tiny_post_sin.json") + " 'i eat'").status, 2);
  EXPECT_EQ(run_cli("translate --max-steps x --model m 'i eat'").status, 2);
  // Numbers no integer can hold are usage errors (casting them would be undefined behaviour).
  for (const char* flag : {"--max-length", "--beam", "--top-k", "--seed"})
    for (const char* value : {"1e300", "-1e300", "1e19", "-1", "nan"})
      EXPECT_EQ(run_cli(std::string("translate ") + flag + " " + value + " --model m 'i eat'").status, 2) << flag << " " << value;
  EXPECT_EQ(run_cli("translate --seed 0.5 --model m 'i eat'").status, 2);
}

// --f32 expands an F16 file's weights to binary32 (the default keeps them in binary16): the same
// JSON to the last digit of every logit and attention weight. The old --binary16 flag is gone.
TEST(Cli, F32LoadGivesTheSameOutput) {
  const std::string args = " --json --beam 3 --max-steps 8 --model " +
                           testing::golden_path("deep_post_learned_f16.safetensors") + " 'we can read book'";
  const Result half = run_cli("translate" + args);
  ASSERT_EQ(half.status, 0);
  EXPECT_NE(half.out.find("\"attention\""), std::string::npos);
  EXPECT_EQ(run_cli("translate --f32" + args).out, half.out);
  EXPECT_EQ(run_cli("translate --binary16" + args).status, 2);
}

TEST(Cli, InfoPrintsConfigAndArchitecture) {
  const Result r = run_cli("info --model " + testing::golden_path("small_pre_learned.safetensors"));
  ASSERT_EQ(r.status, 0);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["config"]["n_heads"], 4);
  EXPECT_EQ(j["config"]["norm"], "pre");
  // The family's description of its architecture, as the JS API's info.architectureDescription.
  const json& d = j["architecture_description"];
  EXPECT_EQ(d["family"], "Transformer encoder-decoder");
  EXPECT_EQ(d["blocks"][1], json({{"id", "enc"}, {"column", "Encoder"}, {"label", "Encoder layer × 2"},
                                  {"detail", "self-attention (4 heads) · FFN 64"}}));
  EXPECT_EQ(d["links"], json::parse(R"([{"from": "enc", "to": "dec", "label": "memory"}])"));
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

const std::string kToyModel = testing::frozen_toy_path();

TEST(Cli, EveryDecodingModeRuns) {
  const Result beam = run_cli("translate --model " + kToyModel + " --beam 4 --nbest 3 --length-penalty 0.6 'i can eat apple'");
  ASSERT_EQ(beam.status, 0);
  const auto beam_lines = lines(beam.out);
  ASSERT_EQ(beam_lines.size(), 3u);
  EXPECT_EQ(beam_lines[0].substr(beam_lines[0].rfind('\t') + 1), "ich konnen apfel essen");

  const std::string sample = "translate --model " + kToyModel + " --sample --temperature 2 --top-k 5 --top-p 0.95 --seed ";
  EXPECT_EQ(run_cli(sample + "3 'we can read book'").out, run_cli(sample + "3 'we can read book'").out);

  const Result forced = run_cli("translate --model " + kToyModel + " --prefix 'wir' 'i can eat apple'");
  EXPECT_EQ(forced.out, "wir konnen apfel essen\n");
  EXPECT_EQ(run_cli("translate --model " + kToyModel + " --prefix 'zzz' 'i can eat apple'").status, 3);
  EXPECT_EQ(run_cli("translate --model " + kToyModel + " --beam 2 --nbest 3 'i eat'").status, 2);
}

TEST(Cli, BeamTreeJson) {
  const Result r = run_cli("translate --model " + kToyModel + " --beam 3 --nbest 2 --beam-tree 'we drink beer'");
  ASSERT_EQ(r.status, 0);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["strategy"], "beam");
  EXPECT_EQ(j["nbest"].size(), 2u);
  EXPECT_EQ(j["translation"], "wir trinken bier");
  ASSERT_GT(j["beam_tree"].size(), 4u);
  std::set<std::string> statuses;
  for (const json& node : j["beam_tree"]) statuses.insert(node["status"].get<std::string>());
  EXPECT_TRUE(statuses.count("finished"));
  EXPECT_TRUE(statuses.count("pruned"));
  EXPECT_EQ(j["steps"][1]["expansions"].size(), 3u) << "three live hypotheses extended at step 1";
}

}  // namespace
}  // namespace attnscope

namespace attnscope {
namespace {

TEST(Cli, InterventionsFlag) {
  const std::string toy = testing::frozen_toy_path();
  const Result none = run_cli("translate --model " + toy + " --interventions '{}' 'i can eat apple'");
  EXPECT_EQ(none.out, "ich konnen apfel essen\n");
  const Result uniform = run_cli("translate --model " + toy +
                                 " --interventions '{\"attention\": [{\"site\": \"cross\", \"pattern\": \"uniform\"}]}' "
                                 "--json 'i can eat apple'");
  ASSERT_EQ(uniform.status, 0);
  const json j = json::parse(uniform.out);
  EXPECT_NE(j["translation"], "ich konnen apfel essen");
  for (const json& w : j["steps"][0]["expansions"][0]["cross_attn"][0][0]) EXPECT_FLOAT_EQ(w.get<float>(), 0.2f);
  EXPECT_EQ(run_cli("translate --model " + toy + " --interventions '{\"skip\": [\"x\"]}' 'i eat'").status, 2);
}

// fill-mask on an encoder-only model: the top pieces and probabilities of the PyTorch reference
// (tests/golden/bert/), the attention in --json, and the exit statuses.
TEST(CliFillMask, MatchesReferenceAndReportsErrors) {
  const json g = testing::load_json(testing::golden_path("bert/small_mlm.json"));
  const std::string model = testing::golden_path("bert/small_mlm.safetensors");
  int masks = 0;
  for (const json& c : g["cases"]) {
    if (c["masks"].empty()) continue;
    const Result r = run_cli("fill-mask --json --top-k 5 --model " + model + " " + quoted(c["text"]));
    ASSERT_EQ(r.status, 0) << c["text"];
    const json j = json::parse(r.out);
    EXPECT_EQ(j["tokens"], c["pieces"]);
    EXPECT_EQ(j["segments"], c["segments"]);
    ASSERT_EQ(j["masks"].size(), c["masks"].size());
    for (std::size_t m = 0; m < c["masks"].size(); ++m, ++masks) {
      EXPECT_EQ(j["masks"][m]["position"], c["masks"][m]["position"]);
      for (std::size_t k = 0; k < 5; ++k) {
        EXPECT_EQ(j["masks"][m]["top_k"][k]["id"], c["masks"][m]["ids"][k]);
        EXPECT_NEAR(j["masks"][m]["top_k"][k]["prob"].get<double>(), c["masks"][m]["probabilities"][k].get<double>(), 1e-4);
      }
    }
    const json& a = j["attention"]["self"];
    std::vector<float> flat;
    for (const json& layer : a)
      for (const json& head : layer)
        for (const json& row : head)
          for (const json& x : row) flat.push_back(x.get<float>());
    testing::expect_close(c["attention"], flat.data(), flat.size(),
                          {static_cast<int>(a.size()), static_cast<int>(a[0].size()), static_cast<int>(a[0][0].size()),
                           static_cast<int>(a[0][0][0].size())},
                          "fill-mask --json attention");
  }
  EXPECT_EQ(masks, 5);
  const Result text = run_cli("fill-mask --model " + model + " 'i want to eat [MASK] .'");
  ASSERT_EQ(text.status, 0);
  ASSERT_EQ(lines(text.out).size(), 2u);
  EXPECT_EQ(lines(text.out)[0], "i want to eat ? .");  // the reference's top piece is '?'
  EXPECT_EQ(lines(text.out)[1].rfind("  5:  ? 0.86", 0), 0u) << lines(text.out)[1];
  EXPECT_EQ(run_cli("fill-mask --model " + model + " 'no mask here'").status, 3);
  EXPECT_EQ(run_cli("fill-mask --model " + model + " --top-k 0 'a [MASK]'").status, 2);
  EXPECT_EQ(run_cli("fill-mask --model " + testing::frozen_toy_path() + " 'a [MASK]'").status, 2);  // not a BERT
  EXPECT_EQ(run_cli("translate --model " + model + " 'i want to eat'").status, 2);  // no decoder
}


// generate on a decoder-only model (tests/golden/decoder_only/, gpt.py's forward): the greedy
// continuation and the first step's full causal map in --json, the beam's n-best, a prompt that
// fills the context, and each of translate and generate refusing the other's models.
TEST(CliGenerate, MatchesReferenceAndRefusesTheWrongFamily) {
  const json g = testing::load_json(testing::golden_path("decoder_only/pre_learned_gelu_tanh.json"));
  const std::string model = testing::golden_path("decoder_only/pre_learned_gelu_tanh.safetensors");
  const json& c = g["cases"][1];
  const Result r = run_cli("generate --json --max-length 5 --model " + model + " " + quoted(c["prompt"]));
  ASSERT_EQ(r.status, 0);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["source_ids"].get<std::vector<int>>(), testing::after_bos(2, c["prompt_ids"]));  // what it reads
  EXPECT_EQ(j["output_ids"], c["greedy"]["tokens"]);
  EXPECT_TRUE(j["attention"].empty());  // no site is computed once per prompt
  for (std::size_t step = 0; step < 2; ++step) {
    const json& a = j["steps"][step]["expansions"][0]["attention"]["self"];
    std::vector<float> flat;
    std::vector<int> shape;
    testing::flatten(a, flat, shape);
    testing::expect_close(c["greedy"]["steps"][step]["attention"], flat.data(), flat.size(), shape,
                          "generate --json attention, step " + std::to_string(step));
  }
  const Result beam = run_cli("generate --json --beam 3 --nbest 3 --max-length 4 --length-norm none --model " +
                              model + " " + quoted(c["prompt"]));
  ASSERT_EQ(beam.status, 0);
  const json nbest = json::parse(beam.out)["nbest"];
  ASSERT_EQ(nbest.size(), c["beam"]["nbest_results"].size());
  for (std::size_t i = 0; i < nbest.size(); ++i) EXPECT_EQ(nbest[i]["ids"], c["beam"]["nbest_results"][i]["tokens"]);

  // Ten prompt tokens in a context of 16 leave room for six.
  const Result full = run_cli("generate --json --model " + model + " 'i want to eat apple and i want to eat'");
  ASSERT_EQ(full.status, 0);
  EXPECT_LE(json::parse(full.out)["output_ids"].size(), 6u);
  EXPECT_EQ(run_cli("generate --model " + model + " 'i want to eat apple and i want to eat apple and i want to eat'")
                .status,
            3);  // 16 tokens and <bos> do not fit
  EXPECT_EQ(run_cli("translate --model " + model + " 'i want'").status, 2);
  EXPECT_EQ(run_cli("generate --model " + testing::frozen_toy_path() + " 'i want'").status, 2);
  EXPECT_EQ(run_cli("generate --model " + model).status, 2);  // no prompt

  // --no-prepend-bos: the prompt's tokens alone, whatever the file says (<bos> first: no prepend_bos
  // field); the first step's map is over them. A translation model refuses the flag.
  const Result bare = run_cli("generate --json --max-length 1 --no-prepend-bos --model " + model + " " + quoted(c["prompt"]));
  ASSERT_EQ(bare.status, 0);
  const json first = json::parse(bare.out);
  EXPECT_EQ(first["source_ids"], c["prompt_ids"]);
  EXPECT_EQ(first["steps"][0]["expansions"][0]["attention"]["self"][0][0].size(), c["prompt_ids"].size());
  const Result empty = run_cli("generate --json --max-length 1 --no-prepend-bos --model " + model + " ''");
  ASSERT_EQ(empty.status, 0);
  EXPECT_EQ(json::parse(empty.out)["source_ids"], json::array({2}));  // <bos> alone, regardless
  const Result refused = run_cli("translate --json --prepend-bos --model " + testing::frozen_toy_path() + " 'a dog'");
  EXPECT_EQ(refused.status, 3);
  EXPECT_NE(refused.out.find("prependBos"), std::string::npos) << refused.out;
}

// --attribution against torch.autograd (tests/golden/attribution/, make_attribution_goldens.py):
// the frozen toy's greedy translation, per step; and a decoder-only model's first generated token.
TEST(CliAttribution, MatchesTheReferenceAndReportsBadValues) {
  const json g = testing::load_json(testing::golden_path("attribution/toy.json"));
  const std::string toy = " --model " + testing::frozen_toy_path() + " " + quoted(g["sentence"]);
  for (const char* method : {"gradient-input", "integrated-gradients"}) {
    const std::string key = method == std::string("gradient-input") ? "gradient_input" : "integrated_gradients";
    const Result r = run_cli(std::string("translate --attribution ") + method + " --ig-steps 16" + toy);
    ASSERT_EQ(r.status, 0) << method;
    const json a = json::parse(r.out)["attribution"];
    EXPECT_EQ(a["method"], method);
    ASSERT_EQ(a["steps"].size(), g["steps"].size());
    for (std::size_t t = 0; t < g["steps"].size(); ++t) {
      const json& want = g["steps"][t];
      const json& got = a["steps"][t];
      const std::string what = std::string(method) + " step " + std::to_string(t);
      EXPECT_EQ(got["token_id"], want["token"]) << what;
      const auto source = got["source_scores"].get<std::vector<float>>();
      const auto target = got["target_scores"].get<std::vector<float>>();
      testing::expect_close(want[key]["source_scores"], source.data(), source.size(),
                            {static_cast<int>(source.size())}, what + " source");
      testing::expect_close(want[key]["target_scores"], target.data(), target.size(),
                            {static_cast<int>(target.size())}, what + " target");
      if (key == "integrated_gradients")
        EXPECT_NEAR(got["completeness_error"].get<double>(), want[key]["completeness_error"].get<double>(), 1e-4) << what;
      if (key != "gradient_input") continue;
      // τ per head of the cross-attention against |gradient × input| (null where undefined).
      ASSERT_EQ(got["agreement"]["tau"].size(), want["tau"].size()) << what;
      for (std::size_t l = 0; l < want["tau"].size(); ++l)
        for (std::size_t h = 0; h < want["tau"][l].size(); ++h) {
          if (want["tau"][l][h].is_null()) {
            EXPECT_TRUE(got["agreement"]["tau"][l][h].is_null()) << what;
          } else {
            EXPECT_NEAR(got["agreement"]["tau"][l][h].get<double>(), want["tau"][l][h].get<double>(), 1e-9) << what;
          }
        }
    }
    EXPECT_TRUE(a.contains("mean_agreement")) << method;
  }
  const json gpt = testing::load_json(testing::golden_path("attribution/pre_learned_gelu_tanh.json"));
  const json& first = gpt["cases"][0];  // gradient × input of the first generated token
  const Result r = run_cli("generate --attribution gradient-input --max-length 1 --model " +
                           testing::golden_path(gpt["model"]) + " 'i want to'");
  ASSERT_EQ(r.status, 0);
  const json step = json::parse(r.out)["attribution"]["steps"][0];
  EXPECT_EQ(step["token_id"], first["token"]);
  EXPECT_TRUE(step["source_scores"].empty());
  const auto target = step["target_scores"].get<std::vector<float>>();
  testing::expect_close(first["target_scores"], target.data(), target.size(), {static_cast<int>(target.size())},
                        "generate --attribution");
  // fill-mask: the [MASK]'s best piece explained over the input.
  const json bert = testing::load_json(testing::golden_path("attribution/small_mlm.json"));
  const json& mask = bert["cases"][0];
  const json text = testing::load_json(testing::golden_path("bert/small_mlm.json"))["cases"][0]["text"];
  const Result filled = run_cli("fill-mask --attribution gradient-input --model " + testing::golden_path(bert["model"]) +
                                " " + quoted(text));
  ASSERT_EQ(filled.status, 0);
  const json explained = json::parse(filled.out)["masks"][0]["attribution"];
  EXPECT_EQ(explained["step"], mask["row"]);
  EXPECT_EQ(explained["token_id"], mask["token"]);
  EXPECT_EQ(explained["agreement"]["site"], "self");
  const auto source = explained["source_scores"].get<std::vector<float>>();
  testing::expect_close(mask["source_scores"], source.data(), source.size(), {static_cast<int>(source.size())},
                        "fill-mask --attribution");
  // Bad values: a usage error naming the value.
  EXPECT_EQ(run_cli("translate --attribution saliency" + toy).status, 2);
  EXPECT_EQ(run_cli("translate --attribution integrated-gradients --ig-steps 0" + toy).status, 2);
  EXPECT_EQ(run_cli("translate --attribution gradient-input --baseline mean" + toy).status, 2);
  EXPECT_EQ(run_cli("translate --attribution gradient-input --contrast no-such-token" + toy).status, 2);
}

}  // namespace
}  // namespace attnscope
