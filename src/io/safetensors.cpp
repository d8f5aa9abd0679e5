#include "io/safetensors.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"
#include "io/half.h"

namespace attnscope {
namespace {

using json = nlohmann::json;

// A header larger than this is not a model we could hold in a browser tab anyway, and
// refusing it early keeps a corrupted length field from triggering a huge allocation.
constexpr std::uint64_t kMaxHeaderBytes = 64u << 20;

std::size_t dtype_size(DType t) { return t == DType::F32 ? 4 : 2; }

DType parse_dtype(const std::string& name, const std::string& tensor) {
  if (name == "F32") return DType::F32;
  if (name == "F16") return DType::F16;
  throw ModelFileError("tensor " + quote(tensor) + " has dtype " + excerpt(name) + "; attnscope reads F32 and F16");
}

TensorInfo parse_tensor_info(const std::string& name, const json& entry, std::size_t data_size) {
  if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
      !entry.contains("data_offsets"))
    throw ModelFileError("tensor " + quote(name) + " needs dtype, shape and data_offsets");
  if (!entry["dtype"].is_string())
    throw ModelFileError("tensor " + quote(name) + " has a non-string dtype, " + json_excerpt(entry["dtype"]));
  TensorInfo info;
  info.dtype = parse_dtype(entry["dtype"].get<std::string>(), name);

  const json& shape = entry["shape"];
  if (!shape.is_array()) throw ModelFileError("tensor " + quote(name) + " shape is not an array");
  for (const json& d : shape) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0 || d.get<std::int64_t>() > (1LL << 32))
      throw ModelFileError("tensor " + quote(name) + " has an invalid dimension " + json_excerpt(d));
    info.shape.push_back(d.get<std::int64_t>());
  }

  const json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned())
    throw ModelFileError("tensor " + quote(name) + " data_offsets must be two non-negative integers");
  const std::uint64_t begin = offsets[0].get<std::uint64_t>();
  const std::uint64_t end = offsets[1].get<std::uint64_t>();
  if (begin > end || end > data_size)
    throw ModelFileError("tensor " + quote(name) + " data_offsets [" + std::to_string(begin) + ", " +
                         std::to_string(end) + "] lie outside the " + std::to_string(data_size) +
                         "-byte data section (file truncated?)");
  info.begin = static_cast<std::size_t>(begin);
  info.end = static_cast<std::size_t>(end);

  // Checked in 64 bits with an overflow guard: shapes come from an untrusted file.
  std::uint64_t expected = dtype_size(info.dtype);
  for (std::int64_t d : info.shape) {
    if (d != 0 && expected > (std::uint64_t(1) << 40) / static_cast<std::uint64_t>(d))
      throw ModelFileError("tensor " + quote(name) + " shape is too large");
    expected *= static_cast<std::uint64_t>(d);
  }
  if (end - begin != expected)
    throw ModelFileError("tensor " + quote(name) + " occupies " + std::to_string(end - begin) +
                         " bytes but its dtype and shape need " + std::to_string(expected));
  return info;
}

}  // namespace

std::size_t TensorInfo::numel() const {
  std::size_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

SafetensorsFile::SafetensorsFile(const std::uint8_t* bytes, std::size_t size) : size_(size) {
  if (size < 8)
    throw ModelFileError("file is " + std::to_string(size) +
                         " bytes, too short for a safetensors header");
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | bytes[i];
  if (header_len > size - 8)
    throw ModelFileError("header length " + std::to_string(header_len) + " exceeds the " +
                         std::to_string(size - 8) + " bytes after it (file truncated?)");
  if (header_len > kMaxHeaderBytes)
    throw ModelFileError("header length " + std::to_string(header_len) + " is implausibly large");

  const json header = parse_json(
      std::string_view(reinterpret_cast<const char*>(bytes) + 8, static_cast<std::size_t>(header_len)), "header",
      JsonSource::ModelFile);
  if (!header.is_object()) throw ModelFileError("header is not a JSON object");

  data_ = bytes + 8 + header_len;
  data_size_ = size - 8 - static_cast<std::size_t>(header_len);

  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it.value().is_object()) throw ModelFileError("__metadata__ is not a JSON object");
      for (auto m = it.value().begin(); m != it.value().end(); ++m) {
        if (!m.value().is_string())
          throw ModelFileError("__metadata__ value " + quote(m.key()) + " is not a string");
        metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    tensors_[it.key()] = parse_tensor_info(it.key(), it.value(), data_size_);
  }

  // Tensors must not share bytes: overlapping ranges mean a corrupted or hostile file.
  std::vector<std::pair<std::size_t, const std::string*>> starts;
  for (const auto& [name, info] : tensors_)
    if (info.end > info.begin) starts.emplace_back(info.begin, &name);
  std::sort(starts.begin(), starts.end());
  for (std::size_t i = 1; i < starts.size(); ++i) {
    const TensorInfo& prev = tensors_.at(*starts[i - 1].second);
    if (starts[i].first < prev.end)
      throw ModelFileError("tensors " + quote(*starts[i - 1].second) + " and " + quote(*starts[i].second) +
                           " overlap in the data section");
  }
}

const TensorInfo& SafetensorsFile::info(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw ModelFileError("missing tensor " + quote(name));
  return it->second;
}

std::vector<float> SafetensorsFile::read_f32(const std::string& name) const {
  std::vector<float> out(info(name).numel());
  read_f32(name, out.data());
  return out;
}

void SafetensorsFile::read_f32(const std::string& name, float* out) const {
  const TensorInfo& t = info(name);
  const std::size_t n = t.numel();
  const std::uint8_t* src = data_ + t.begin;
  if (t.dtype == DType::F32) {
    if (n > 0) std::memcpy(out, src, n * sizeof(float));
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      out[i] = half_to_float(h);
    }
  }
}

// C stdio, not std::ifstream: no iostreams in the engine (see decoding/options.cpp).
std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  const std::string name = "'" + printable(path) + "'";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!in) throw Error("cannot open file " + name + ": " + std::strerror(errno));
  // fopen() opens a directory too, and ftell() then reports a size no read can deliver.
  struct stat st;
  if (fstat(fileno(in.get()), &st) != 0) throw Error("cannot read file " + name + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error("cannot read file " + name + ": it is a directory");
  if (!S_ISREG(st.st_mode)) throw Error("cannot read file " + name + ": it is not a regular file");
  const auto size = static_cast<std::size_t>(st.st_size);
  std::vector<std::uint8_t> bytes(size);
  if (size > 0 && std::fread(bytes.data(), 1, bytes.size(), in.get()) != bytes.size())
    throw Error("cannot read file " + name);
  return bytes;
}

}  // namespace attnscope
