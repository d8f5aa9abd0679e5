// A model file streamed in pieces (io/staged_bytes.h): loaded from its staged pieces it is the
// model its file loads, every tensor's staged bytes are freed by the load, and a broken stream
// is refused with the words a broken file gets.
#include <gtest/gtest.h>

#include <random>
#include <utility>

#include "core/error.h"
#include "io/half.h"
#include "io/safetensors.h"
#include "io/staged_bytes.h"
#include "model/model.h"
#include "test_support.h"
#include "train/differentiable.h"

namespace attnscope {
namespace {

using Bytes = std::vector<std::uint8_t>;

// `bytes` staged as a download delivers them: pieces of random sizes, from 1 byte to 64 KiB.
std::shared_ptr<StagedBytes> staged(const Bytes& bytes, unsigned seed) {
  auto out = std::make_shared<StagedBytes>(bytes.size());
  std::mt19937 random(seed);
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t n = std::min<std::size_t>(bytes.size() - at, 1 + random() % (random() % 4 == 0 ? 65536 : 300));
    out->append(bytes.data() + at, n);
    at += n;
  }
  EXPECT_TRUE(out->complete());
  return out;
}

// The logits of one sentence through the model's gradient pass, which reads every weight.
Matrix logits_of(const std::shared_ptr<const Model>& model) {
  const std::string& arch = model->config.architecture;
  train::Tokens tokens{{4, 5, 6, 2}, {1, 7, 4}};
  if (arch == "decoder_only") tokens.source.clear();
  if (arch == "bert") tokens.target.clear();
  const auto pass = train::differentiable_for(model);
  return pass->forward(tokens, pass->embed(tokens));
}

TEST(StagedBytes, AStreamedFileLoadsTheModelItsFileLoadsAndFreesWhatItStaged) {
  const std::vector<std::string> files = {
      "../../models/multi30k-en-de.safetensors",    "../../models/multi30k-en-gpt.safetensors",
      "../../models/multi30k-en-mlm.safetensors",   "../../models/toy-rnn-luong-dot.safetensors",
      "deep_post_learned_f16.safetensors",          "tiny_post_sin.safetensors",
      "decoder_only/post_sin_relu_untied.safetensors", "bert/tiny_pooler.safetensors",
      "rnn/lstm_luong_dot_feed_local.safetensors",  "hf/opus-mt-en-de-tiny.safetensors",
  };
  unsigned seed = 1;
  for (const std::string& name : files) {
    const std::string path = testing::golden_path(name);
    const Bytes bytes = read_file_bytes(path);
    for (const bool binary16 : {true, false})
      for (const bool int8 : {false, true}) {
        SCOPED_TRACE(name + (binary16 ? " binary16" : " binary32") + (int8 ? " int8" : ""));
        Model::LoadOptions options;
        options.binary16 = binary16;
        options.int8 = int8;
        auto source = staged(bytes, seed++);
        // Every tensor byte is staged until the load reads it.
        EXPECT_EQ(source->staged_tensor_bytes(), bytes.size() - header_end(bytes.data(), bytes.size(), bytes.size()));
        const auto from_stream = Model::load(source, options);
        EXPECT_EQ(source->staged_tensor_bytes(), 0u) << "the load left staged tensors behind";
        EXPECT_EQ(source.use_count(), 1) << "the model holds its staged bytes";
        const Matrix want = logits_of(Model::load_file(path, options));
        const Matrix got = logits_of(from_stream);
        ASSERT_EQ(got.rows(), want.rows());
        EXPECT_TRUE(got == want) << "a streamed load gives other logits than the file's";
      }
  }
}

TEST(StagedBytes, AnUnreadF16TensorIsHandedOverWithoutACopy) {
  const std::string path = testing::golden_path("deep_post_learned_f16.safetensors");
  const Bytes bytes = read_file_bytes(path);
  const SafetensorsFile in_memory(bytes.data(), bytes.size());
  const auto source = staged(bytes, 11);
  const SafetensorsFile file(source);
  std::size_t taken = 0;
  for (const auto& [name, info] : file.tensors()) {
    ASSERT_EQ(info.dtype, DType::F16) << name;
    EXPECT_TRUE(in_memory.take_halves(name).empty()) << "bytes in memory are not the reader's to take";
    const std::vector<std::uint16_t> halves = file.take_halves(name);
    ASSERT_EQ(halves.size(), info.numel()) << name;
    const std::vector<float> want = in_memory.read_f32(name);
    for (std::size_t i = 0; i < halves.size(); ++i) ASSERT_EQ(half_to_float(halves[i]), want[i]) << name << " " << i;
    EXPECT_TRUE(file.take_halves(name).empty()) << "a tensor was handed over twice";
    taken += 2 * halves.size();
  }
  EXPECT_EQ(taken, bytes.size() - header_end(bytes.data(), bytes.size(), bytes.size()));
  EXPECT_EQ(source->staged_tensor_bytes(), 0u);
}

// The message of the Error `f` throws ("" when none).
template <typename F>
std::string thrown(F&& f) {
  return testing::thrown_message<Error>(std::forward<F>(f), "");
}

TEST(StagedBytes, ABrokenStreamIsRefusedAsTheSameFileIs) {
  const Bytes good = read_file_bytes(testing::golden_path("tiny_post_sin.safetensors"));
  const std::uint64_t data_begin = header_end(good.data(), good.size(), good.size());

  // A stream that ends before the file does: the words a file cut there gets.
  for (const std::size_t cut_at : {std::size_t{5}, std::size_t{100}, good.size() - 4}) {
    const Bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut_at));
    const std::string file_says = thrown([&] { Model::load_bytes(cut.data(), cut.size()); });
    ASSERT_FALSE(file_says.empty());
    StagedBytes stream(good.size());
    stream.append(cut.data(), cut.size());
    EXPECT_EQ(thrown([&] { stream.check_complete(); }), file_says) << "cut at " << cut_at;
  }

  // Not a model at all: refused from its first 8 bytes, in the file's words.
  const Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
  const std::string png_says = thrown([&] { Model::load_bytes(png.data(), png.size()); });
  EXPECT_NE(png_says.find("PNG"), std::string::npos) << png_says;
  StagedBytes png_stream(png.size());
  EXPECT_EQ(thrown([&] { png_stream.append(png.data(), 8); }), png_says);

  // A file too short for a header's length.
  StagedBytes tiny(3);
  EXPECT_NE(thrown([&] { tiny.append(good.data(), 3); }).find("too short for a safetensors header"), std::string::npos);

  // More bytes than the header promises.
  StagedBytes whole(good.size());
  whole.append(good.data(), good.size());
  EXPECT_NE(thrown([&] { whole.append(good.data(), 1); }).find("trailing data"), std::string::npos);

  // Read before every byte arrived, or read twice: an internal error, never stale bytes.
  StagedBytes half(good.size());
  half.append(good.data(), static_cast<std::size_t>(data_begin) + 1);
  std::uint8_t byte = 0;
  EXPECT_NE(thrown([&] { half.read(0, 1, &byte); }).find("before all of them had arrived"), std::string::npos);
  const auto read_twice = staged(good, 3);
  const SafetensorsFile file(read_twice);
  const std::string first = file.tensors().begin()->first;
  file.read_f32(first);
  EXPECT_NE(thrown([&] { file.read_f32(first); }).find("read twice"), std::string::npos);
}

}  // namespace
}  // namespace attnscope
