// BLEU by source length (src/analysis/bleu_by_length.h) against models/evaluation/bleu_by_length.py,
// the pure-Python binning over the sacreBLEU port, through goldens written by
// models/goldens/make_bleu_by_length_goldens.py; and a model's own translations on the toy grammar.
#include "analysis/bleu_by_length.h"

#include <fstream>

#include "core/error.h"
#include "model/model.h"
#include "test_support.h"

namespace attnscope {
namespace {

using testing::json;

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the toy pairs have CRLF line ends
    out.push_back(line);
  }
  return out;
}

std::string data(const std::string& name) { return std::string(ATTNSCOPE_TEST_DATA_DIR) + "/" + name; }

void expect_bleu(const Bleu& b, const json& want, const std::string& where) {
  EXPECT_NEAR(b.score, want["bleu"].get<double>(), 1e-9) << where;
  EXPECT_NEAR(b.brevity_penalty, want["brevityPenalty"].get<double>(), 1e-12) << where;
  EXPECT_EQ(b.hyp_len, want["hypLen"].get<long>()) << where;
  EXPECT_EQ(b.ref_len, want["refLen"].get<long>()) << where;
  for (int n = 0; n < 4; ++n) EXPECT_NEAR(b.precisions[n], want["precisions"][n].get<double>(), 1e-9) << where;
}

TEST(BleuByLength, MatchesThePythonBinning) {
  const json goldens = testing::load_json(testing::golden_path("bleu_by_length.json"));
  ASSERT_GE(goldens["cases"].size(), 5u);
  for (const json& c : goldens["cases"]) {
    const std::string name = c["name"];
    std::vector<std::string> sources, hypotheses, references;
    if (c.contains("data")) {
      sources = lines_of(data("multi30k/val.first40.en"));
      hypotheses = lines_of(data("multi30k/val.first40.hyp.de"));
      references = lines_of(data("multi30k/val.first40.de"));
    } else {
      sources = c["sources"].get<std::vector<std::string>>();
      hypotheses = c["hypotheses"].get<std::vector<std::string>>();
      references = c["references"].get<std::vector<std::string>>();
    }
    const BleuByLength r = bleu_by_length(sources, hypotheses, references, c["edges"].get<std::vector<int>>());
    const json& want = c["result"];
    EXPECT_EQ(r.edges, want["edges"].get<std::vector<int>>()) << name;
    ASSERT_EQ(r.bins.size(), want["bins"].size()) << name;
    for (std::size_t i = 0; i < r.bins.size(); ++i) {
      const LengthBin& b = r.bins[i];
      const json& w = want["bins"][i];
      const std::string where = name + ", bin " + std::to_string(i);
      EXPECT_EQ(b.min_words, w["minWords"].get<int>()) << where;
      EXPECT_EQ(b.max_words, w["maxWords"].is_null() ? 0 : w["maxWords"].get<int>()) << where;
      EXPECT_EQ(b.sentences, w["sentences"].get<int>()) << where;
      if (w["bleu"].is_null()) EXPECT_EQ(b.sentences, 0) << where;
      else expect_bleu(b.bleu, w, where);
    }
    EXPECT_EQ(r.sentences, want["total"]["sentences"].get<int>()) << name;
    expect_bleu(r.total, want["total"], name + ", total");
  }
}

TEST(BleuByLength, DefaultBinsAreBahdanausLengths) {
  EXPECT_EQ(default_length_edges(), (std::vector<int>{8, 12, 16, 20}));
}

TEST(BleuByLength, BadInputIsAnError) {
  const std::vector<std::string> one{"a dog ."};
  EXPECT_THROW(bleu_by_length({}, {}, {}), InputError);                           // no sentences
  EXPECT_THROW(bleu_by_length(one, {}, one), InputError);                         // a translation missing
  EXPECT_THROW(bleu_by_length(one, one, {"a", "b"}), InputError);                 // a reference too many
  EXPECT_THROW(bleu_by_length({" \t\u00a0"}, one, one), InputError);              // a source without words
  for (const std::vector<int>& edges : {std::vector<int>{}, {0, 8}, {8, 8}, {12, 8}, {-1}})
    EXPECT_THROW(bleu_by_length(one, one, one, edges), InputError) << ::testing::PrintToString(edges);
  try {
    bleu_by_length(one, one, one, {12, 8});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("increase"), std::string::npos) << e.what();
  }
}

// The frozen toy model translates its 36 pairs exactly: every bin whose sentences have 4-grams
// scores 100, and the 3-word bin 0 (no 4-gram at all, as sacreBLEU scores it).
TEST(BleuByLength, TranslatesWithTheModel) {
  std::vector<std::string> sources, references;
  for (const std::string& line : lines_of(data("toy/eng_de.csv"))) {
    const auto comma = line.find(',');
    sources.push_back(line.substr(0, comma));
    references.push_back(line.substr(comma + 1));
  }
  const auto model = Model::load_file(testing::frozen_toy_path());
  DecodeOptions options;
  options.strategy = Strategy::Beam;
  options.beam_size = 3;
  std::vector<std::string> translations;
  std::vector<std::pair<int, int>> progress;
  const BleuByLength r = translate_bleu_by_length(model, sources, references, options, {3, 4}, &translations,
                                                  [&](int done, int total) { progress.emplace_back(done, total); });
  EXPECT_EQ(translations, references);
  ASSERT_EQ(r.bins.size(), 3u);
  for (const LengthBin& b : r.bins) EXPECT_EQ(b.sentences, 12);
  EXPECT_EQ(r.bins[0].bleu.score, 0.0);
  EXPECT_NEAR(r.bins[1].bleu.score, 100.0, 1e-9);
  EXPECT_NEAR(r.bins[2].bleu.score, 100.0, 1e-9);
  EXPECT_NEAR(r.total.score, 100.0, 1e-9);
  ASSERT_EQ(progress.size(), sources.size() + 1);
  EXPECT_EQ(progress.front(), std::make_pair(0, 36));
  EXPECT_EQ(progress.back(), std::make_pair(36, 36));
}

TEST(BleuByLength, TranslationChecksComeBeforeDecoding) {
  const auto model = Model::load_file(testing::frozen_toy_path());
  int calls = 0;
  const auto count = [&](int, int) { ++calls; };
  EXPECT_THROW(translate_bleu_by_length(model, {"i eat apple"}, {"ich essen apfel"}, {}, {5, 2}, nullptr, count), InputError);
  EXPECT_THROW(translate_bleu_by_length(model, {"i eat apple", "i"}, {"ich essen apfel"}, {}, {8}, nullptr, count), InputError);
  EXPECT_THROW(translate_bleu_by_length(model, {"i eat apple", ""}, {"a", "b"}, {}, {8}, nullptr, count), InputError);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace attnscope
