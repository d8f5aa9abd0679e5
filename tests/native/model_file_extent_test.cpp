// A model file's extent: its tensors must cover the data section exactly (no gap, no overlap, no
// byte after the last tensor, as the safetensors format requires), a file that is no model at
// all is called what it looks like, and a file on disk is judged by its header before its bulk
// is read (sparse files of 3 GiB make that cheap to check).
#include <gtest/gtest.h>

#include <filesystem>

#include "hostile_support.h"
#include "io/safetensors.h"

namespace attnscope {
namespace {

using namespace hostile;

const char* kTiny = "tiny_post_sin.safetensors";
constexpr std::uint64_t k3GiB = std::uint64_t(3) << 30;

// The tensor whose bytes come last in the data section, and its range.
std::string last_tensor(const json& h) {
  std::string last;
  std::size_t last_end = 0;
  for (const auto& [name, info] : h.items())
    if (name != "__metadata__" && info["data_offsets"][1].get<std::size_t>() >= last_end) {
      last = name;
      last_end = info["data_offsets"][1].get<std::size_t>();
    }
  return last;
}

TEST(ModelFileExtent, TrailingBytesAfterTheLastTensorAreRefused) {
  const Bytes good = golden_bytes(kTiny);
  for (std::size_t extra : {std::size_t(1), std::size_t(4096)}) {
    Bytes padded = good;
    padded.resize(good.size() + extra, 0);
    const std::string many = extra == 1 ? " byte" : " bytes";
    EXPECT_EQ(load_error(padded), "invalid model file: " + std::to_string(extra) + many +
                                      " of trailing data after the last tensor: the header says the file ends at byte " +
                                      std::to_string(good.size()) + ", but it is " + std::to_string(padded.size()) +
                                      " bytes (a safetensors file ends with its last tensor)");
  }
}

// The last tensor moved 4 bytes on, and 4 bytes put before its data: every tensor still inside
// the file and of its size, but 4 bytes belong to none.
TEST(ModelFileExtent, AGapBetweenTensorsIsRefused) {
  const Bytes good = golden_bytes(kTiny);
  json h = header_of(good);
  const std::string last = last_tensor(h);
  const std::size_t begin = h[last]["data_offsets"][0], end = h[last]["data_offsets"][1];
  h[last]["data_offsets"] = {begin + 4, end + 4};
  Bytes gapped = with_header(good, h.dump());
  const std::size_t data_begin = gapped.size() - (good.size() - 8 - header_length(good));
  gapped.insert(gapped.begin() + static_cast<std::ptrdiff_t>(data_begin + begin), 4, 0);
  EXPECT_EQ(load_error(gapped), "invalid model file: bytes [" + std::to_string(begin) + ", " + std::to_string(begin + 4) +
                                    ") of the data section belong to no tensor (a gap before tensor '" + last +
                                    "'); a safetensors file has none");
}

// An empty tensor placed inside another's bytes shares them: the format's tiling refuses it (it
// was let through when only tensors with bytes were compared).
TEST(ModelFileExtent, AnEmptyTensorInsideAnotherIsAnOverlap) {
  const Bytes good = golden_bytes(kTiny);
  json h = header_of(good);
  const std::string last = last_tensor(h);
  const std::size_t begin = h[last]["data_offsets"][0];
  h["zz.empty"] = {{"dtype", "F32"}, {"shape", {0}}, {"data_offsets", {begin + 4, begin + 4}}};
  EXPECT_EQ(load_error(with_header(good, h.dump())),
            "invalid model file: tensors '" + last + "' and 'zz.empty' overlap in the data section");
}

// A file of `head` followed by `size` bytes in all.
Bytes file_starting(const std::string& head, std::size_t size = 4096) {
  Bytes b(head.begin(), head.end());
  b.resize(size, 0);
  return b;
}

// Files that are not models are called what they look like; the header length they would give
// stays in the message, for the curious.
TEST(ModelFileExtent, AFileThatIsNoModelIsCalledWhatItLooksLike) {
  const std::string kPng("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  EXPECT_EQ(load_error(file_starting(kPng, 170748)),
            "invalid model file: this is not a safetensors model file (it starts with the bytes of a PNG image): "
            "its first 8 bytes, read as a header length, give 727905341920923785, and the format allows 2 to 100000000");
  const std::pair<std::string, std::string> cases[] = {
      {"\xff\xd8\xff\xe0\0\x10JFIF", "(it starts with the bytes of a JPEG image)"},
      {"GIF89a\x01\0\x01\0", "(it starts with the bytes of a GIF image)"},
      {"%PDF-1.7\n", "(it starts with the bytes of a PDF document)"},
      {std::string("PK\x03\x04\x14\0\0\0", 8),
       "(it starts with the bytes of a ZIP archive, as a PyTorch checkpoint (pytorch_model.bin) does: "
       "convert a Hugging Face model with models/convert/convert_hf.py)"},
      {std::string("\x80\x02}q\0(X", 7),
       "(it starts with the bytes of a Python pickle, as a legacy PyTorch checkpoint does: "
       "convert a Hugging Face model with models/convert/convert_hf.py)"},
      {std::string("\x1f\x8b\x08\0\0\0\0\0", 8), "(it starts with the bytes of a gzip archive: decompress it first)"},
      {"version https://git-lfs.github.com/spec/v1\noid sha256:", "(it is a Git LFS pointer, not the file it points to: run git lfs pull)"},
      {"<!DOCTYPE html><html>", "(it starts with '<', as an HTML page does (a web page saved instead of the model?))"},
      {"\n  {\"error\": \"not found\"}", "(it starts with '{', as a JSON text does)"},
      {"hello, world", "(it does not start with a safetensors header)"},
      {std::string(16, '\0'), "(it does not start with a safetensors header)"},
  };
  for (const auto& [head, says] : cases) {
    const std::string message = load_error(file_starting(head));
    EXPECT_EQ(message.rfind("invalid model file: this is not a safetensors model file " + says + ": its first 8 bytes, read as a header length, give ", 0), 0)
        << message;
  }
  // A plausible length with too few bytes after it is a truncated model, and is called so.
  EXPECT_EQ(load_error(file_starting(std::string("\x10\x27\0\0\0\0\0\0{", 9), 100)),
            "invalid model file: header length 10000 exceeds the 92 bytes after it (file truncated?)");
}

// A sparse file of `size` bytes that starts with `head`: gigabytes that take no disk space.
class SparseFile : public TempFile {
 public:
  SparseFile(const std::string& name, const Bytes& head, std::uint64_t size) : TempFile(name, head) {
    std::filesystem::resize_file(path(), size);
  }
};

// The tiny model padded to 3 GiB, and 3 GiB of zeros: the CLI refuses both from their first
// bytes, within a 256 MB address space (it read the whole file first, 19.5 s and 3.15 GB for the
// padded one, and allocating it fails inside 256 MB).
TEST(ModelFileExtent, TheCliJudgesAFileByItsHeaderBeforeReadingIt) {
  const Bytes good = golden_bytes(kTiny);
  const SparseFile padded("padded.safetensors", good, k3GiB);
  CliRun r = run_cli("info --model " + padded.path(), 256);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "attnscope-cli: error: invalid model file: '" + padded.path() + "': " +
                       std::to_string(k3GiB - good.size()) +
                       " bytes of trailing data after the last tensor: the header says the file ends at byte " +
                       std::to_string(good.size()) + ", but it is " + std::to_string(k3GiB) +
                       " bytes (a safetensors file ends with its last tensor)\n");

  const SparseFile zeros("zeros.safetensors", Bytes(), k3GiB);
  r = run_cli("info --model " + zeros.path(), 256);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err, "attnscope-cli: error: invalid model file: '" + zeros.path() +
                       "': this is not a safetensors model file (it does not start with a safetensors header): its "
                       "first 8 bytes, read as a header length, give 0, and the format allows 2 to 100000000\n");
}

// The reader reads a good file whole, and the same bytes as a plain read.
TEST(ModelFileExtent, AGoodFileIsReadWhole) {
  const std::string path = testing::golden_path(kTiny);
  EXPECT_EQ(read_safetensors_file(path), read_file_bytes(path));
}

}  // namespace
}  // namespace attnscope
