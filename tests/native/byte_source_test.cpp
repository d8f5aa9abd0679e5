// Where a model's bytes are read from (io/byte_source.h): a file on disk is read a range at a
// time, never whole, and gives the same tensors as the same bytes in memory; a loaded model keeps
// no reference to its bytes, and attribution's gradient pass runs without them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>

#include "hostile_support.h"
#include "io/byte_source.h"
#include "io/half.h"
#include "io/safetensors.h"
#include "model/model.h"
#include "test_support.h"
#include "train/differentiable.h"

namespace attnscope {
namespace {

using hostile::Bytes;
using hostile::TempFile;

// A safetensors file of one F16 tensor and one BF16 tensor of `n` elements each, every bit
// pattern of `pattern(i)`.
Bytes half_file(std::size_t n, std::uint16_t (*pattern)(std::size_t)) {
  const std::string nb = std::to_string(2 * n), n2 = std::to_string(4 * n);
  std::string header = "{\"a\":{\"dtype\":\"F16\",\"shape\":[" + std::to_string(n) + "],\"data_offsets\":[0," + nb +
                       "]},\"b\":{\"dtype\":\"BF16\",\"shape\":[" + std::to_string(n) + "],\"data_offsets\":[" + nb +
                       "," + n2 + "]}}";
  Bytes out(8);
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(header.size() >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint16_t h = pattern(i + t);
      out.push_back(static_cast<std::uint8_t>(h));
      out.push_back(static_cast<std::uint8_t>(h >> 8));
    }
  return out;
}

// Finite halves and bfloats of every exponent, both signs.
std::uint16_t finite(std::size_t i) { return static_cast<std::uint16_t>((i * 2654435761u) & 0x7bffu) ^ ((i & 1) << 15); }

TEST(ByteSource, AFileGivesTheTensorsItsBytesGiveInMemory) {
  // Longer than the slice an F16 tensor is widened in, and not a multiple of it.
  const std::size_t n = 100'003;
  const Bytes bytes = half_file(n, finite);
  const TempFile file("halves.safetensors", bytes);
  const SafetensorsFile on_disk(std::make_shared<FileBytes>(file.path()));
  const SafetensorsFile in_memory(bytes.data(), bytes.size());
  for (const char* name : {"a", "b"}) {
    const std::vector<float> got = on_disk.read_f32(name);
    ASSERT_EQ(got.size(), n);
    EXPECT_EQ(got, in_memory.read_f32(name)) << name;
    const bool bf16 = name[0] == 'b';
    for (std::size_t i = 0; i < n; ++i) {
      const float want = bf16 ? bfloat16_to_float(finite(i + 1)) : half_to_float(finite(i));
      ASSERT_EQ(std::memcmp(&got[i], &want, 4), 0) << name << " element " << i;
    }
  }
}

TEST(ByteSource, FileBytesReadsRangesAndSaysWhatIsWrong) {
  const TempFile file("range.bin", std::string("0123456789"));
  const FileBytes source(file.path());
  EXPECT_EQ(source.size(), 10u);
  std::uint8_t got[4];
  source.read(3, 4, got);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(got), 4), "3456");

  EXPECT_THROW(
      {
        try {
          FileBytes missing(file.path() + ".absent");
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("cannot open file"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  const char* dir = std::getenv("TMPDIR");
  try {
    FileBytes folder(dir && *dir ? dir : "/tmp");
    ADD_FAILURE() << "a directory was opened as a file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("it is a directory"), std::string::npos) << e.what();
  }
  // A file cut short after it was opened: the read says so instead of returning stale bytes.
  ASSERT_EQ(truncate(file.path().c_str(), 5), 0);
  try {
    source.read(3, 4, got);
    ADD_FAILURE() << "a read past the file's new end succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shorter than when it was opened"), std::string::npos) << e.what();
  }
}

TEST(ByteSource, AModelKeepsNoReferenceToItsBytes) {
  const std::string path = testing::frozen_toy_path();
  const auto bytes = read_file_bytes(path);
  auto source = std::make_shared<MemoryBytes>(bytes.data(), bytes.size());
  const auto from_source = Model::load(source, Model::LoadOptions{});
  EXPECT_EQ(source.use_count(), 1) << "the model still holds the bytes it was loaded from";
  source.reset();

  // The pass runs on the loaded weights: the same from a file, from a source let go, and from
  // bytes the caller keeps.
  const auto pass = train::differentiable_for(Model::load_file(path));
  const auto without_source = train::differentiable_for(from_source);
  const auto reference = train::differentiable_from_bytes(bytes.data(), bytes.size());
  const train::Tokens tokens{{4, 5, 6}, {1, 7}};
  const Matrix logits = pass->forward(tokens, pass->embed(tokens));
  EXPECT_EQ(logits, reference->forward(tokens, reference->embed(tokens)));
  EXPECT_EQ(logits, without_source->forward(tokens, without_source->embed(tokens)));
}

}  // namespace
}  // namespace attnscope
