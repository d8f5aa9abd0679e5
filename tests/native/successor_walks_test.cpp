// The induction preset's corpus (src/train/successor_walks.h): walks that follow a successor map of
// their own, broken by uniform jumps, split into halves, with the probes shared with the
// repeated-sequence corpus.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.h"
#include "train/repeated_sequences.h"
#include "train/successor_walks.h"

namespace attnscope {
namespace {

// "s3 s0 s12" -> {3, 0, 12}.
std::vector<int> symbols_of(const std::string& text) {
  std::vector<int> ids;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    EXPECT_EQ(text[start], 's') << text;
    ids.push_back(std::stoi(text.substr(start + 1, end - start - 1)));
    start = end + 1;
  }
  return ids;
}

std::vector<std::vector<int>> walks_of(const train::InductionCorpus& corpus) {
  std::vector<std::vector<int>> walks;
  for (const train::TrainPair& pair : corpus.pairs) {
    std::vector<int> walk = symbols_of(pair.source);
    const std::vector<int> rest = symbols_of(pair.target);
    walk.insert(walk.end(), rest.begin(), rest.end());
    walks.push_back(walk);
  }
  return walks;
}

train::SuccessorWalksOptions options(int symbols, int length, double jump, int sequences) {
  train::SuccessorWalksOptions o;
  o.symbols = symbols, o.length = length, o.jump = jump, o.sequences = sequences, o.probe_length = 4;
  return o;
}

TEST(SuccessorWalks, EachPairIsAWalkSplitInHalves) {
  const train::InductionCorpus data = train::successor_walks(options(10, 21, 0.2, 30));
  ASSERT_EQ(data.symbols.size(), 10u);
  EXPECT_EQ(data.symbols.front(), "s0");
  EXPECT_EQ(data.symbols.back(), "s9");
  ASSERT_EQ(data.pairs.size(), 30u);
  for (const train::TrainPair& pair : data.pairs) {
    EXPECT_EQ(symbols_of(pair.source).size(), 10u) << pair.source;  // the first ⌊21 / 2⌋
    EXPECT_EQ(symbols_of(pair.target).size(), 11u) << pair.target;
  }
}

TEST(SuccessorWalks, WithoutJumpsEveryWalkFollowsOneMapOfItsOwn) {
  const train::InductionCorpus data = train::successor_walks(options(12, 60, 0.0, 200));
  std::set<int> successors_of_s0;  // across walks
  for (const std::vector<int>& walk : walks_of(data)) {
    std::map<int, int> successor;
    for (std::size_t t = 1; t < walk.size(); ++t) {
      const auto [it, fresh] = successor.emplace(walk[t - 1], walk[t]);
      EXPECT_EQ(it->second, walk[t]) << "s" << walk[t - 1] << " is followed by two symbols in one walk";
    }
    if (successor.count(0)) successors_of_s0.insert(successor[0]);
  }
  // The maps are drawn per walk: s0's successor varies (all 12 are likely among ~100 walks that visit s0).
  EXPECT_GE(successors_of_s0.size(), 10u);
}

TEST(SuccessorWalks, JumpsAreUniformAndAsFrequentAsAsked) {
  // jump 1: every symbol uniform. 200 × 60 = 12,000 draws over 12 symbols: 1,000 each, sd ~30.
  std::map<int, int> counts;
  for (const std::vector<int>& walk : walks_of(train::successor_walks(options(12, 60, 1.0, 200))))
    for (int s : walk) ++counts[s];
  ASSERT_EQ(counts.size(), 12u);
  for (const auto& [symbol, n] : counts) EXPECT_TRUE(n > 850 && n < 1150) << "s" << symbol << " drawn " << n << " times";
  // jump 0.3 over 1,000 symbols: take a walk's first transition out of each symbol and compare
  // every later one with it. They agree when both followed the walk's map (0.7²; a jump landing on
  // the same symbol, about 1 in 1,000, is negligible), so they differ about 1 - 0.7² = 0.51 of the time.
  int later = 0, differ = 0;
  for (const std::vector<int>& walk : walks_of(train::successor_walks(options(1000, 512, 0.3, 100)))) {
    std::map<int, int> first;
    for (std::size_t t = 1; t < walk.size(); ++t) {
      const auto [it, fresh] = first.emplace(walk[t - 1], walk[t]);
      if (!fresh) ++later, differ += it->second != walk[t];
    }
  }
  ASSERT_GT(later, 1000);
  const double share = static_cast<double>(differ) / later;
  EXPECT_NEAR(share, 1.0 - 0.7 * 0.7, 0.04) << differ << " of " << later;
}

TEST(SuccessorWalks, ASeedGivesOneCorpusAndTheProbesAreTheRepeatedSequencesOnes) {
  auto o = options(16, 40, 0.2, 50);
  const auto a = train::successor_walks(o, 3);
  EXPECT_EQ(walks_of(train::successor_walks(o, 3)), walks_of(a));
  o.seed = 2;
  const auto b = train::successor_walks(o, 3);
  EXPECT_NE(walks_of(b), walks_of(a));
  EXPECT_EQ(b.probes, a.probes);
  train::RepeatedSequencesOptions r;
  r.half_length = 4, r.symbols = 16;
  EXPECT_EQ(train::repeated_sequences(r, 3).probes, a.probes);
  ASSERT_EQ(a.probes.size(), 3u);
  for (const std::string& probe : a.probes) {
    const std::vector<int> ids = symbols_of(probe);
    ASSERT_EQ(ids.size(), 8u);
    EXPECT_EQ(std::set<int>(ids.begin(), ids.begin() + 4).size(), 4u) << probe;  // distinct
    EXPECT_TRUE(std::equal(ids.begin(), ids.begin() + 4, ids.begin() + 4)) << probe;
  }
}

TEST(SuccessorWalks, RefuseOptionsOutsideTheLimits) {
  EXPECT_THROW(train::successor_walks(options(1, 40, 0.2, 10)), InputError);
  EXPECT_THROW(train::successor_walks(options(1001, 40, 0.2, 10)), InputError);
  EXPECT_THROW(train::successor_walks(options(10, 7, 0.2, 10)), InputError);    // shorter than a probe
  EXPECT_THROW(train::successor_walks(options(10, 513, 0.2, 10)), InputError);  // a half over 256 tokens
  EXPECT_THROW(train::successor_walks(options(10, 40, -0.1, 10)), InputError);
  EXPECT_THROW(train::successor_walks(options(10, 40, 1.5, 10)), InputError);
  EXPECT_THROW(train::successor_walks(options(10, 40, std::nan(""), 10)), InputError);
  EXPECT_THROW(train::successor_walks(options(10, 40, 0.2, 0)), InputError);
  EXPECT_THROW(train::successor_walks(options(10, 40, 0.2, 10), 0), InputError);
  auto long_probes = options(10, 40, 0.2, 10);
  long_probes.probe_length = 11;  // more than the symbols: not distinct
  EXPECT_THROW(train::successor_walks(long_probes), InputError);
}

}  // namespace
}  // namespace attnscope
