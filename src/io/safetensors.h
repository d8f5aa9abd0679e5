#pragma once
// Reader for the safetensors container (https://github.com/huggingface/safetensors):
//   [u64 little-endian header length N][N bytes of JSON header][tensor data]
// The reader validates the container itself; what the tensors mean is the model's business.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnscope {

enum class DType { F32, F16 };

struct TensorInfo {
  DType dtype;
  std::vector<std::int64_t> shape;
  std::size_t begin = 0, end = 0;  // byte range inside the data section
  std::size_t numel() const;
};

class SafetensorsFile {
 public:
  // Parses and validates the header. `bytes` is not copied and must outlive this object.
  SafetensorsFile(const std::uint8_t* bytes, std::size_t size);

  std::size_t size() const { return size_; }  // the whole file, header included
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  const TensorInfo& info(const std::string& name) const;

  // The tensor's values as f32 (f16 is converted), row-major.
  std::vector<float> read_f32(const std::string& name) const;
  // The same into `out` (info(name).numel() floats): a loader's matrix, with no copy between.
  void read_f32(const std::string& name, float* out) const;

 private:
  std::size_t size_ = 0;
  const std::uint8_t* data_ = nullptr;  // start of the data section
  std::size_t data_size_ = 0;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, TensorInfo> tensors_;
};

// Reads a whole file; throws Error naming the path if it cannot.
std::vector<std::uint8_t> read_file_bytes(const std::string& path);

}  // namespace attnscope
