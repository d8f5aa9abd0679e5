// Model files whose claims are out of proportion to their bytes, paths that are not model
// files, and a model's own text (tensor names, dtypes, vocabularies) carrying control
// characters: each is a clear error or escaped output, never a huge allocation, an abort or
// raw control bytes in a message or on the terminal.
#include <gtest/gtest.h>

#include "core/quote.h"
#include "families/transformer/transformer.h"
#include "hostile_support.h"
#include "model/model.h"

namespace attnscope {
namespace {

using namespace hostile;

const char* kTiny = "tiny_post_sin.safetensors";  // d_model 16, d_ff 32, vocabularies 18 / 17

// The 1.1 MB file of the report in small: the config claims d_model 16384 and 8192 sinusoidal
// positions (1 GB of positions before), the tensors are the tiny model's. The first tensor's
// shape refuses it, before anything of the config's size is allocated: the CLI does it within
// a 256 MB address space.
TEST(HostileModel, ConfigSizesThatTheTensorsDoNotHaveAllocateNothing) {
  const Bytes b = golden_bytes(kTiny);
  json h = header_of(b);
  json c = json::parse(h["__metadata__"]["config"].get<std::string>());
  c["d_model"] = 16384;
  c["d_ff"] = 65536;
  c["max_positions"] = 8192;
  h["__metadata__"]["config"] = c.dump();
  const Bytes file = with_header(b, h.dump());
  const std::string want = "tensor 'src_embed.weight' has shape [18, 16], expected [18, 16384]";
  EXPECT_EQ(load_error(file), "invalid model file: " + want);

  const TempFile path("huge-config.safetensors", file);
  const CliRun r = run_cli("info --model " + path.path(), 256);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "attnscope-cli: error: invalid model file: '" + path.path() + "': " + want + "\n");
}

// A transformer of width `d` with d_ff 1 and `positions` sinusoidal positions whose tensors all
// match its config (binary16 zeros): the tiny model's tensors with 16 -> d and 32 -> 1.
Bytes wide_model(int d, int positions) {
  const Bytes tiny = golden_bytes(kTiny);
  const json tiny_header = header_of(tiny);
  json h = json::object();
  std::size_t offset = 0;
  for (const auto& [name, info] : tiny_header.items()) {
    if (name == "__metadata__") continue;
    json shape = json::array();
    std::size_t n = 1;
    for (int dim : info["shape"]) {
      const int scaled = dim == 16 ? d : dim == 32 ? 1 : dim;
      shape.push_back(scaled);
      n *= static_cast<std::size_t>(scaled);
    }
    h[name] = {{"dtype", "F16"}, {"shape", shape}, {"data_offsets", {offset, offset + 2 * n}}};
    offset += 2 * n;
  }
  json meta = tiny_header["__metadata__"];
  json c = json::parse(meta["config"].get<std::string>());
  c["d_model"] = d;
  c["d_ff"] = 1;
  c["max_positions"] = positions;
  meta["config"] = c.dump();
  h["__metadata__"] = meta;
  const std::string text = h.dump();
  Bytes out(8);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(text.size() >> (8 * i));
  out.insert(out.end(), text.begin(), text.end());
  out.resize(out.size() + offset, 0);  // binary16 zeros
  return out;
}

// Tables computed from the config (sinusoidal positions, a copy for the encoder and one for the
// decoder) are bounded by the file's size: 8192 positions of width 512 are 33,554,432 bytes,
// more than a 6.3 MB file may make the engine allocate (16 MiB, or the file's size if larger).
// The same file with 64 positions loads.
TEST(HostileModel, DerivedTablesAreBoundedByTheFilesSize) {
  const Bytes big = wide_model(512, 8192);
  EXPECT_EQ(load_error(big), "invalid model file: sinusoidal positions (8192 x 512) would take 33554432 bytes, more than "
                             "the 16777216 a " + std::to_string(big.size()) + "-byte file may make the engine allocate");
  const Bytes small = wide_model(512, 64);
  const auto model = Model::load_bytes(small.data(), small.size());
  EXPECT_EQ(transformer::of(*model).config().d_model, 512);
}

TEST(HostileModel, ADirectoryIsAnUnreadableModelFileNamed) {
  const std::string dir = testing::golden_path("rnn");
  try {
    Model::load_file(dir);
    ADD_FAILURE() << "a directory loaded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read file '" + dir + "': it is a directory");
  }
  const CliRun r = run_cli("info --model " + dir);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "attnscope-cli: error: cannot read file '" + dir + "': it is a directory\n");
}

// 2,000,000 source words whose embedding the file does not have: refused by the tensor's shape,
// exit 2 naming the file (it ended in "internal error: std::bad_alloc", exit 1).
TEST(HostileModel, AHugeVocabularyWithoutItsTensorsIsRefusedByName) {
  const Bytes b = golden_bytes(kTiny);
  json h = header_of(b);
  json vocab = json::parse(h["__metadata__"]["src_vocab"].get<std::string>());
  for (int i = 0; i < 2'000'000; ++i) vocab.push_back("w" + std::to_string(i));
  h["__metadata__"]["src_vocab"] = vocab.dump();
  const TempFile path("huge-vocab.safetensors", with_header(b, h.dump()));
  const CliRun r = run_cli("info --model " + path.path(), 1024);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "attnscope-cli: error: invalid model file: '" + path.path() +
                       "': tensor 'src_embed.weight' has shape [18, 16], expected [2000018, 16]\n");
}

TEST(HostileModel, ControlCharactersInAFilesStringsAreEscapedInMessages) {
  const Bytes b = golden_bytes(kTiny);
  json h = header_of(b);
  h["output.bias"]["dtype"] = std::string("F32\0", 4);
  std::string message = load_error(with_header(b, h.dump()));
  EXPECT_EQ(message, "invalid model file: tensor 'output.bias' has dtype F32\\u0000; attnscope reads F32, F16 and BF16");
  EXPECT_EQ(message.find('\0'), std::string::npos);

  // An extra, empty tensor whose name would clear the terminal and end a C string.
  h = header_of(b);
  const std::size_t end = h["output.bias"]["data_offsets"][1];
  h[std::string("\x1b[2Jstray\0", 10)] = {{"dtype", "F32"}, {"shape", {0}}, {"data_offsets", {end, end}}};
  message = load_error(with_header(b, h.dump()));
  EXPECT_EQ(message, "invalid model file: unexpected tensor '\\u001B[2Jstray\\u0000' (not used by this config)");

  // A long name is cut: the message stays short.
  h = header_of(b);
  h[std::string(100'000, 'x')] = {{"dtype", "F32"}, {"shape", {0}}, {"data_offsets", {end, end}}};
  message = load_error(with_header(b, h.dump()));
  EXPECT_EQ(message, "invalid model file: unexpected tensor '" + std::string(kMaxQuotedBytes, 'x') + "...' (not used by this config)");
}

// A vocabulary whose words carry ESC sequences and NULs: the CLI's text output escapes them
// (and its JSON output, where nlohmann escapes them as JSON does); the words are the model's
// own, shown, not obeyed.
TEST(HostileModel, TheClisTextOutputEscapesAModelsControlCharacters) {
  const Bytes b = read_file_bytes(testing::frozen_toy_path());
  json h = header_of(b);
  json vocab = json::parse(h["__metadata__"]["tgt_vocab"].get<std::string>());
  for (std::size_t i = 4; i < vocab.size(); ++i) vocab[i] = "\x1b[31m" + vocab[i].get<std::string>() + std::string("\0", 1);
  h["__metadata__"]["tgt_vocab"] = vocab.dump();
  const TempFile path("control-vocab.safetensors", with_header(b, h.dump()));

  const CliRun text = run_cli("translate --model " + path.path() + " 'i can eat apple' \"$(printf 'i eat \\033zz\\007')\"");
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_FALSE(has_control_bytes(text.out)) << text.out;
  EXPECT_EQ(text.out.substr(0, text.out.find('\n')),
            "\\u001B[31mich\\u0000 \\u001B[31mkonnen\\u0000 \\u001B[31mapfel\\u0000 \\u001B[31messen\\u0000");
  // The unknown word of the second sentence, on stderr.
  EXPECT_FALSE(has_control_bytes(text.err)) << text.err;
  EXPECT_NE(text.err.find("unknown words: \\u001Bzz\\u0007"), std::string::npos) << text.err;

  const CliRun nbest = run_cli("translate --model " + path.path() + " --beam 2 --nbest 2 'i can eat apple'");
  EXPECT_EQ(nbest.status, 0);
  EXPECT_NE(nbest.out.find("\\u001B[31mich\\u0000"), std::string::npos) << nbest.out;  // tabs separate the columns
  EXPECT_EQ(nbest.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(nbest.out.find('\0'), std::string::npos);

  const CliRun json_out = run_cli("translate --json --model " + path.path() + " 'i can eat apple'");
  EXPECT_EQ(json_out.status, 0);
  EXPECT_FALSE(has_control_bytes(json_out.out));
  EXPECT_NE(json_out.out.find("\\u001b[31mich\\u0000"), std::string::npos);
}

}  // namespace
}  // namespace attnscope
