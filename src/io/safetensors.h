#pragma once
// Reader for the safetensors container (https://github.com/huggingface/safetensors):
//   [u64 little-endian header length N][N bytes of JSON header][tensor data]
// The reader validates the container itself; what the tensors mean is the model's business.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/byte_source.h"

namespace attnscope {

// The format's bound on the header's length N (its reference implementation's MAX_HEADER_SIZE).
// web/model-header.js applies the same number to a download before the engine sees it.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

// BF16: bfloat16, the top half of a binary32 (a checkpoint's native dtype in many newer models).
enum class DType { F32, F16, BF16 };

struct TensorInfo {
  DType dtype;
  std::vector<std::int64_t> shape;
  std::size_t begin = 0, end = 0;  // byte range inside the data section
  std::size_t numel() const;
};

class SafetensorsFile {
 public:
  // Parses and validates the header, and that the tensors cover the data section exactly: no
  // gap, no overlap, no byte after the last tensor (the format's rule). Only the header is read
  // here; each tensor's bytes are read from `source` when asked for, and nothing else is kept.
  explicit SafetensorsFile(std::shared_ptr<const ByteSource> source);
  // The same over bytes in memory, which are not copied and must outlive this object.
  SafetensorsFile(const std::uint8_t* bytes, std::size_t size);

  // The same checks from the file's first `available` bytes alone (8 + N of them, the header's
  // end, or more) and its size: a reader of a file on disk decides before reading its tensors.
  // Returns the tensors, their byte ranges relative to the data section (which starts at 8 + N).
  static std::map<std::string, TensorInfo> check_header(const std::uint8_t* prefix, std::size_t available,
                                                        std::uint64_t file_size);

  std::size_t size() const { return size_; }  // the whole file, header included
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  const TensorInfo& info(const std::string& name) const;

  // The tensor's values as f32 (f16 and bf16 are converted), row-major.
  std::vector<float> read_f32(const std::string& name) const;
  // The same into `out` (info(name).numel() floats): a loader's matrix, with no copy between
  // (an F16 or BF16 tensor passes through a small buffer, a slice at a time).
  void read_f32(const std::string& name, float* out) const;
  // Elements [first, first + count) of the tensor, in row-major order (a block of a matrix's rows).
  void read_f32(const std::string& name, std::size_t first, std::size_t count, float* out) const;

  // An F16 or BF16 tensor's values as its 16-bit words, row-major, taken from a source that can
  // hand them over without a copy (ByteSource::take_words); empty otherwise, or for F32.
  std::vector<std::uint16_t> take_halves(const std::string& name) const;

  const std::shared_ptr<const ByteSource>& source() const { return source_; }

 private:
  std::shared_ptr<const ByteSource> source_;
  std::size_t size_ = 0;
  std::uint64_t data_begin_ = 0;  // 8 + N: where the data section starts
  std::map<std::string, std::string> metadata_;
  std::map<std::string, TensorInfo> tensors_;
};

// Where a safetensors file's header ends (8 + N), from its first 8 bytes and its size. A length no
// header can have (over kMaxHeaderBytes, or under the 2 bytes of "{}") means the file is no
// safetensors model at all, and the message says what it looks like instead (io/file_kind.h).
std::uint64_t header_end(const std::uint8_t* first, std::size_t available, std::uint64_t file_size);

// Reads a whole file; throws Error naming the path if it cannot.
std::vector<std::uint8_t> read_file_bytes(const std::string& path);

// Reads a safetensors file: its header first, then the tensors' bytes only once the header is
// valid and the file's size is exactly what the header promises. A 3 GB file of zeros, or a
// model padded to 3 GB, is refused after its first bytes are read. Throws ModelFileError (the
// path not included) for a file that is not a valid model container, Error naming the path
// for one that cannot be read. (A model is loaded without this whole copy: Model::load_file.)
std::vector<std::uint8_t> read_safetensors_file(const std::string& path);

}  // namespace attnscope
