// Deeply nested JSON in every JSON the engine parses: the safetensors header (a tensor's
// shape), the metadata strings (config, vocabularies, tokenizer), decoding options,
// interventions and training options. Up to kMaxJsonDepth levels a document is parsed and its
// value checked as usual; one level more, or 100,000, is refused before the parser builds
// anything, with a message that names the limit and the byte, echoes no nested value and
// holds no control character.
#include <gtest/gtest.h>

#include "core/json.h"
#include "core/quote.h"
#include "decoding/options_json.h"
#include "hostile_support.h"
#include "model/model.h"
#include "train/options_json.h"

namespace attnscope {
namespace {

using namespace hostile;

const char* kGood = "tiny_post_sin.safetensors";
constexpr int kDeep = 100'000;  // the depth that crashed the engine (a 200 KB value)

// The depths each document is tried at (its whole nesting, containers around the value
// included): shallow, deep but allowed, exactly the limit, one past it, and the attack.
const int kDepths[] = {10, 255, kMaxJsonDepth, kMaxJsonDepth + 1, kDeep};

// The message a document `depth` deep gets: refused for its depth past the limit (naming
// `what`, the limit and the byte where it is passed), else checked as usual (`usual`).
void expect_depth_outcome(const std::string& message, const std::string& document, int depth, const std::string& what,
                          const std::string& usual) {
  SCOPED_TRACE("depth " + std::to_string(depth));
  EXPECT_LT(message.size(), 400u) << message.substr(0, 400);
  EXPECT_FALSE(has_control_bytes(message));
  EXPECT_LE(std::count(message.begin(), message.end(), '['), 81) << "the nested value was echoed: " << message.substr(0, 200);
  if (depth > kMaxJsonDepth) {
    const std::string want = what + " nest" + (what.back() == 's' ? "" : "s") + " arrays and objects deeper than 256 levels (at byte " +
                             std::to_string(offset_of_depth(document, kMaxJsonDepth + 1)) + ")";
    EXPECT_NE(message.find(want), std::string::npos) << "message: " << message << "\nwanted: " << want;
  } else {
    EXPECT_EQ(message.find("deeper than"), std::string::npos) << message;
    EXPECT_NE(message.find(usual), std::string::npos) << "message: " << message << "\nwanted: " << usual;
  }
}

// The golden file with `value` (a JSON text) as config field `field`; `document` gets the
// config's text.
Bytes with_config_field(const std::string& field, const std::string& value, std::string& document) {
  const Bytes b = golden_bytes(kGood);
  json h = header_of(b);
  json c = json::parse(h["__metadata__"]["config"].get<std::string>());
  c[field] = "@";
  document = splice(c.dump(), value);
  h["__metadata__"]["config"] = document;
  return with_header(b, h.dump());
}

// Containers around the value inside a document: the depth the value itself may have.
int inner(int depth, int around) { return depth - around; }

TEST(HostileJson, TensorShapeInTheHeader) {
  const Bytes b = golden_bytes(kGood);
  for (int depth : kDepths) {
    json h = header_of(b);
    h["output.bias"]["shape"] = "@";
    // header > tensor entry > shape: two containers around the shape's own.
    const std::string text = splice(h.dump(), nested(inner(depth, 2)));
    expect_depth_outcome(load_error(with_header(b, text)), text, depth, "header",
                         "tensor 'output.bias' has an invalid dimension [[[");
  }
}

TEST(HostileJson, ConfigFieldsInTheMetadata) {
  // An integer field, the family's name and a choice: each is checked by its own code path.
  const std::pair<const char*, const char*> fields[] = {
      {"d_model", "config field 'd_model' must be an integer, got [[["},
      {"architecture", "config field 'architecture' must be a non-empty string, got [[["},
      {"activation", "config field 'activation' must be one of \"relu\", \"gelu\", \"swish\", got [[["}};
  for (const auto& [field, usual] : fields) {
    SCOPED_TRACE(field);
    for (int depth : kDepths) {
      std::string document;
      const Bytes file = with_config_field(field, nested(inner(depth, 1)), document);
      expect_depth_outcome(load_error(file), document, depth, "config metadata", usual);
    }
  }
}

TEST(HostileJson, VocabularyAndTokenizerInTheMetadata) {
  const Bytes b = golden_bytes(kGood);
  for (int depth : kDepths) {
    json h = header_of(b);
    // A vocabulary is an array of strings: one entry nested instead.
    const std::string vocab = "[\"<pad>\"," + nested(inner(depth, 1)) + "]";
    h["__metadata__"]["src_vocab"] = vocab;
    expect_depth_outcome(load_error(with_header(b, h.dump())), vocab, depth, "metadata 'src_vocab'",
                         "metadata 'src_vocab' must contain only strings");

    h = header_of(b);
    const std::string tokenizer = "{\"type\":\"bpe\",\"merges\":" + nested(inner(depth, 1)) + "}";
    h["__metadata__"]["tokenizer"] = tokenizer;
    expect_depth_outcome(load_error(with_header(b, h.dump())), tokenizer, depth, "tokenizer metadata",
                         "BPE merges must be strings");
  }
}

std::string input_error(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the hostile options were accepted";
  return "";
}

TEST(HostileJson, DecodingOptionsInterventionsAndTrainingOptions) {
  for (int depth : kDepths) {
    const std::string decoding = "{\"maxLength\":" + nested(inner(depth, 1)) + "}";
    expect_depth_outcome(input_error([&] { decode_options_from_json(decoding); }), decoding, depth,
                         "decoding options", "decoding option 'maxLength' must be a number, got [[[");

    // interventions > attention list > entry > weights: the weights hold the rest.
    const std::string interventions = "{\"attention\":[{\"weights\":" + nested(inner(depth, 3)) + "}]}";
    expect_depth_outcome(input_error([&] { interventions_from_json(interventions); }), interventions, depth,
                         "interventions", "decoding option 'weights' must be a number, got [[[");

    const std::string training = "{\"lr\":" + nested(inner(depth, 1)) + "}";
    expect_depth_outcome(input_error([&] { train::train_setup_from_json(training); }), training, depth,
                         "training options", "training option 'lr' must be a number, got [[[");
  }
}

TEST(HostileJson, TheLimitCountsArraysAndObjectsOutsideStringsOnly) {
  const std::string brackets_in_a_string = "[\"" + std::string(10'000, '[') + "\\\"{{{\"]";
  EXPECT_EQ(parse_json(brackets_in_a_string, "text", JsonSource::Input)[0].get<std::string>().size(), 10'004u);
  // Objects count as arrays do, mixed.
  std::string mixed;
  for (int i = 0; i < kMaxJsonDepth; ++i) mixed += i % 2 ? "[" : "{\"k\":";
  std::string closing;
  for (int i = kMaxJsonDepth - 1; i >= 0; --i) closing += i % 2 ? "]" : "}";
  EXPECT_NO_THROW(parse_json(mixed + "1" + closing, "text", JsonSource::Input));
  try {
    parse_json("{\"k\":" + mixed + "1" + closing + "}", "text", JsonSource::ModelFile);
    ADD_FAILURE() << "257 levels were parsed";
  } catch (const ModelFileError& e) {
    EXPECT_EQ(std::string(e.what()), "invalid model file: text nests arrays and objects deeper than 256 levels (at byte " +
                                         std::to_string(5 + offset_of_depth(mixed, kMaxJsonDepth)) + ")");
  }
}

// Flat text costs too: nlohmann's DOM takes ~48 bytes per value, so a text of nothing but "0,"
// would cost 24 times its size (60 MB of it took 1.4 GB). Past 16 times the text (and a 16 MiB
// floor) it is refused unparsed; a vocabulary of a million words (~11 times) is parsed.
TEST(HostileJson, WhatParsingCostsIsBoundedByTheTextsSize) {
  std::string zeros = "[";
  for (int i = 0; i < 999'999; ++i) zeros += "0,";
  zeros += "0]";
  EXPECT_EQ(input_error([&] { parse_json(zeros, "decoding options", JsonSource::Input, true); }),
            "decoding options hold too many values for their 2000001 bytes: parsing 1000001 values would take about "
            "48000112 bytes, more than the 32000016 allowed (16 times the text, at least 16777216)");
  std::string words = "[";
  for (int i = 0; i < 1'000'000; ++i) words += "\"w" + std::to_string(1'000'000 + i) + "\",";
  words.back() = ']';
  EXPECT_EQ(parse_json(words, "metadata 'src_vocab'", JsonSource::ModelFile).size(), 1'000'000u);
}

TEST(HostileJson, ParserMessagesAreShortAndPrintable) {
  // nlohmann quotes the token it stopped at: a megabyte string with a control character at its end.
  const std::string text = "[\"" + std::string(1 << 20, 'a') + "\x01\"]";
  const std::string message = input_error([&] { parse_json(text, "decoding options", JsonSource::Input, true); });
  EXPECT_EQ(message.rfind("decoding options are not valid JSON: [json.exception.parse_error.101]", 0), 0u) << message;
  EXPECT_LT(message.size(), 300u);
  EXPECT_FALSE(has_control_bytes(message));
}

TEST(HostileJson, ExcerptsOfValuesAreShort) {
  EXPECT_EQ(json_excerpt(json::parse("[1,[2,\"x\"],{\"k\":null}]")), "[1,[2,\"x\"],{\"k\":null}]");
  EXPECT_EQ(json_excerpt(json(std::string("F32\0", 4))), "\"F32\\u0000\"");
  const std::string deep = json_excerpt(parse_json(nested(kMaxJsonDepth), "x", JsonSource::Input));
  EXPECT_EQ(deep, std::string(kMaxQuotedBytes, '[') + "...");
  json big = json::array();
  for (int i = 0; i < 100'000; ++i) big.push_back(i);
  EXPECT_EQ(json_excerpt(big).size(), kMaxQuotedBytes + 3);
}

// The crash as reported: the CLI read the file and died of a stack overflow (SIGSEGV, status
// 139); --interventions 60,000 deep the same. Both are now status 2 with the message, and the
// refusal allocates nothing in proportion to the nesting.
TEST(HostileJson, CliRefusesNestedModelFilesAndInterventions) {
  const Bytes b = golden_bytes(kGood);
  json h = header_of(b);
  h["output.bias"]["shape"] = "@";
  const TempFile file("nested.safetensors", with_header(b, splice(h.dump(), nested(kDeep))));
  const CliRun info = run_cli("info --model " + file.path(), 128);
  EXPECT_EQ(info.status, 2) << info.err;
  EXPECT_NE(info.err.find("attnscope-cli: error: invalid model file: '" + file.path() +
                          "': header nests arrays and objects deeper than 256 levels (at byte "),
            std::string::npos)
      << info.err.substr(0, 400);

  const std::string interventions = "{\"attention\":" + nested(60'000) + "}";
  const CliRun translate = run_cli("translate --model " + testing::golden_path(kGood) + " --interventions '" +
                                   interventions + "' 'i eat'", 128);
  EXPECT_EQ(translate.status, 2) << translate.err.substr(0, 400);
  EXPECT_NE(translate.err.find("attnscope-cli: error: interventions nest arrays and objects deeper than 256 levels (at byte " +
                               std::to_string(offset_of_depth(interventions, kMaxJsonDepth + 1)) + ")"),
            std::string::npos)
      << translate.err.substr(0, 400);
}

}  // namespace
}  // namespace attnscope
