// The limits of train/corpus.h on what a trainer reads, in the engine and through
// attnscope-cli train: each refuses its corpus at the first line that breaks it, naming the
// line, before anything is trained or allocated for the corpus. (The JavaScript trainer runs
// the same code: tests/js/hostile-train.test.js.)
#include <gtest/gtest.h>

#include "families/transformer/training.h"
#include "hostile_support.h"
#include "train/corpus.h"
#include "train/trainer.h"

namespace attnscope {
namespace {

using namespace hostile;
using train::kMaxPairs;
using train::kMaxSideBytes;
using train::kMaxSideTokens;
using train::kMaxVocabulary;

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string csv_error(const std::string& text, int max_pairs = kMaxPairs) {
  try {
    train::parse_pairs_csv(text, max_pairs);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the corpus was accepted";
  return "";
}

std::string fresh_error(const std::string& text, const train::Architecture& arch = {}) {
  try {
    train::make_trainable(train::fresh_model(train::word_text_of(train::parse_pairs_csv(text)), arch, 1));
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the corpus was accepted";
  return "";
}

TEST(TrainLimits, EachSideIsHeldToItsBytesAndWords) {
  EXPECT_EQ(kMaxSideBytes, 4096u);
  EXPECT_EQ(kMaxSideTokens, 256);
  const std::string at_limit = repeat("a ", kMaxSideTokens);  // 256 words, 512 bytes
  EXPECT_EQ(train::parse_pairs_csv("x,y\n" + at_limit + ",b\n").size(), 2u);
  EXPECT_EQ(csv_error("x,y\n" + at_limit + "a,b\n"), "pairs line 2: the source has 257 words, more than the 256 a sentence may have");
  EXPECT_EQ(csv_error("a," + std::string(kMaxSideBytes + 1, 'b')),
            "pairs line 1: the target has 4097 bytes, more than the 4096 a sentence may have");
  EXPECT_EQ(csv_error("a,b\n\n\n , c\n"), "pairs line 4: the source is empty");
  EXPECT_EQ(csv_error("a,b\nno comma \x1b[2J\n"), "pairs line 2 needs exactly one comma (source,target): 'no comma \\u001B[2J'");
  EXPECT_EQ(csv_error(std::string(train::kMaxPairLineBytes + 1, 'a')),
            "pairs line 1 is longer than 8194 bytes (each side may have 4096)");
}

TEST(TrainLimits, TheRowCountStopsAtTheFirstPairTooMany) {
  std::string text = repeat("a,b\n", kMaxPairs);
  EXPECT_EQ(train::parse_pairs_csv(text).size(), static_cast<std::size_t>(kMaxPairs));
  text += "\n" + repeat("a,b\n", 1'000);
  EXPECT_EQ(csv_error(text), "pairs line 100002: more than 100000 sentence pairs");
  // A caller's tighter limit (the browser's), never a looser one.
  EXPECT_EQ(csv_error(repeat("a,b\n", 6), 5),
            "pairs line 6: more than 5 sentence pairs (this trainer's limit; attnscope-cli train takes 100000)");
  EXPECT_EQ(csv_error(repeat("a,b\n", kMaxPairs + 1), 1'000'000'000), "pairs line 100001: more than 100000 sentence pairs");
}

TEST(TrainLimits, TokensAreCountedAfterTokenising) {
  // One space-separated word, 300 tokens once punctuation is split off.
  const std::string word = repeat("x.", 150);
  EXPECT_EQ(fresh_error("a b," + word), "pairs line 1: the target has 300 tokens, more than the 256 a sentence may have");
  // Given as pairs, not lines: named by their position.
  try {
    train::fresh_trainable({{"a", "b"}, {word, "c"}}, "rnn", nlohmann::json::object(), 1);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "pair 2: the source has 300 tokens, more than the 256 a sentence may have");
  }
}

TEST(TrainLimits, TheVocabularyStopsAtItsLimitNamingTheLine) {
  // 250 new words a line: line 200 brings the source side to 4 + 50,000 entries.
  std::string text;
  for (int line = 0; line < 210; ++line) {
    for (int w = 0; w < 250; ++w) text += "w" + std::to_string(line * 250 + w) + " ";
    text += ",x\n";
  }
  EXPECT_EQ(fresh_error(text), "pairs line 200 brings the source vocabulary past the 50000 entries a model may have");
  EXPECT_EQ(kMaxVocabulary, 50'000);
}

TEST(TrainLimits, AnArchitectureAModelFileCannotHoldIsRefusedBeforeTraining) {
  train::Architecture arch;
  arch.d_model = 20'000;
  EXPECT_EQ(fresh_error("a,b", arch), "architecture: config field 'd_model' = 20000 is outside [1, 16384]");
}

// attnscope-cli train on the corpora of the report: one sentence of 20,000 words (4.7 GB and 37 s,
// then an error), 200,000 words (an abort), a line with no end, and a million rows. Each is now
// status 2 with the line named, within a 128 MB address space.
TEST(TrainLimits, TheCliRefusesHostileCorporaAtTheirFirstBadLine) {
  const TempFile out("limits.safetensors");
  auto train = [&](const std::string& name, const std::string& csv) {
    const TempFile pairs(name, csv);
    return run_cli("train --pairs " + pairs.path() + " --epochs 1 --seed 1 --out " + out.path(), 128);
  };
  CliRun r = train("20k.csv", "i eat apple,ich esse apfel\n" + repeat("word ", 20'000) + ",wort\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "attnscope-cli: error: pairs line 2 is longer than 8194 bytes (each side may have 4096)\n");

  r = train("300.csv", "a,b\n" + repeat("word ", 300) + ",wort\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "attnscope-cli: error: pairs line 2: the source has 300 words, more than the 256 a sentence may have\n");

  r = train("200k.csv", repeat("word ", 200'000) + ",wort\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "attnscope-cli: error: pairs line 1 is longer than 8194 bytes (each side may have 4096)\n");

  r = train("endless.csv", "a,b\n" + std::string(4'000'000, 'x'));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "attnscope-cli: error: pairs line 2 is longer than 8194 bytes (each side may have 4096)\n");

  r = train("million.csv", repeat("a,b\n", 1'000'000));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "attnscope-cli: error: pairs line 100001: more than 100000 sentence pairs\n");

  r = train("wide.csv", "a,b\n");
  EXPECT_EQ(r.status, 0) << r.err;  // the control: a good corpus trains and is written
}

}  // namespace
}  // namespace attnscope
