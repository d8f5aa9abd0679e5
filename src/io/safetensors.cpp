#include "io/safetensors.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <tuple>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"
#include "io/file_kind.h"
#include "io/half.h"

namespace attnscope {
namespace {

using json = nlohmann::json;

std::size_t dtype_size(DType t) { return t == DType::F32 ? 4 : 2; }

DType parse_dtype(const std::string& name, const std::string& tensor) {
  if (name == "F32") return DType::F32;
  if (name == "F16") return DType::F16;
  if (name == "BF16") return DType::BF16;
  throw ModelFileError("tensor " + quote(tensor) + " has dtype " + excerpt(name) + "; attnscope reads F32, F16 and BF16");
}

TensorInfo parse_tensor_info(const std::string& name, const json& entry, std::uint64_t data_size) {
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

// The tensors must tile the data section: sorted by offsets, each begins where the one before it
// ends, the first at 0 and the last at the section's end. A gap or trailing bytes are data no
// tensor accounts for (a padded, concatenated or corrupted file), an overlap is two tensors
// sharing bytes; the reference implementation refuses all three.
void check_coverage(const std::map<std::string, TensorInfo>& tensors, std::uint64_t header_end,
                    std::uint64_t file_size) {
  std::vector<std::tuple<std::size_t, std::size_t, const std::string*>> ranges;
  for (const auto& [name, info] : tensors) ranges.emplace_back(info.begin, info.end, &name);
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), *std::get<2>(a)) < std::tie(std::get<0>(b), std::get<1>(b), *std::get<2>(b));
  });
  // Overlaps first: two tensors sharing bytes is the more specific fault, and the gap it leaves
  // elsewhere follows from it.
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (std::get<0>(ranges[i]) < std::get<1>(ranges[i - 1]))
      throw ModelFileError("tensors " + quote(*std::get<2>(ranges[i - 1])) + " and " + quote(*std::get<2>(ranges[i])) +
                           " overlap in the data section");
  std::uint64_t covered = 0;
  for (const auto& [begin, end, name] : ranges) {
    if (begin > covered)
      throw ModelFileError("bytes [" + std::to_string(covered) + ", " + std::to_string(begin) +
                           ") of the data section belong to no tensor (a gap before tensor " + quote(*name) +
                           "); a safetensors file has none");
    covered = end;
  }
  const std::uint64_t promised = header_end + covered;
  if (file_size != promised) {
    const std::uint64_t extra = file_size - promised;  // every tensor ends inside the file: extra > 0
    throw ModelFileError(std::to_string(extra) + (extra == 1 ? " byte" : " bytes") +
                         " of trailing data after the last tensor: the header says the file ends at byte " +
                         std::to_string(promised) + ", but it is " + std::to_string(file_size) +
                         " bytes (a safetensors file ends with its last tensor)");
  }
}

struct Header {
  std::map<std::string, std::string> metadata;
  std::map<std::string, TensorInfo> tensors;
  std::uint64_t end = 0;  // 8 + N: where the data section begins
};

// The header of a file of `file_size` bytes whose first `available` bytes are at `bytes`,
// validated as far as that is possible without the tensors' bytes.
Header parse_header(const std::uint8_t* bytes, std::size_t available, std::uint64_t file_size) {
  Header h;
  h.end = header_end(bytes, available, file_size);
  if (available < h.end) throw Error("internal error: the header of a safetensors file was not read whole");
  const json header = parse_json(
      std::string_view(reinterpret_cast<const char*>(bytes) + 8, static_cast<std::size_t>(h.end - 8)), "header",
      JsonSource::ModelFile);
  if (!header.is_object()) throw ModelFileError("header is not a JSON object");

  const std::uint64_t data_size = file_size - h.end;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it.value().is_object()) throw ModelFileError("__metadata__ is not a JSON object");
      for (auto m = it.value().begin(); m != it.value().end(); ++m) {
        if (!m.value().is_string())
          throw ModelFileError("__metadata__ value " + quote(m.key()) + " is not a string");
        h.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    h.tensors[it.key()] = parse_tensor_info(it.key(), it.value(), data_size);
  }
  check_coverage(h.tensors, h.end, file_size);
  return h;
}

}  // namespace

std::uint64_t header_end(const std::uint8_t* first, std::size_t available, std::uint64_t file_size) {
  if (file_size < 8)
    throw ModelFileError("file is " + std::to_string(file_size) + " bytes, too short for a safetensors header");
  if (available < 8) throw Error("internal error: a safetensors file's first 8 bytes were not read");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | first[i];
  if (n < 2 || n > kMaxHeaderBytes)
    throw ModelFileError("this is not a safetensors model file (" + describe_file_start(first, available) +
                         "): its first 8 bytes, read as a header length, give " + std::to_string(n) +
                         ", and the format allows 2 to " + std::to_string(kMaxHeaderBytes));
  if (n > file_size - 8) {
    // A length that may be a header's, in a file too short for it: cut short, unless its first
    // bytes are those of a known kind of file (a gzip header reads as a length of 559903).
    const std::string looks = describe_file_start(first, available);
    if (looks != kNoSafetensorsHeader)
      throw ModelFileError("this is not a safetensors model file (" + looks + "): its first 8 bytes, read as a header length, give " +
                           std::to_string(n) + ", more than the " + std::to_string(file_size - 8) + " bytes after them");
    throw ModelFileError("header length " + std::to_string(n) + " exceeds the " + std::to_string(file_size - 8) +
                         " bytes after it (file truncated?)");
  }
  return 8 + n;
}

std::size_t TensorInfo::numel() const {
  std::size_t n = 1;
  for (std::int64_t d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

SafetensorsFile::SafetensorsFile(std::shared_ptr<const ByteSource> source) : source_(std::move(source)) {
  const std::uint64_t size = source_->size();
  if (size > SIZE_MAX) throw ModelFileError("file is " + std::to_string(size) + " bytes, more than this machine can address");
  size_ = static_cast<std::size_t>(size);
  // The length first: a file that is no model is refused from its first bytes (a few more than
  // the length's 8, which is what naming the kind of file it is takes: a Git LFS pointer).
  std::vector<std::uint8_t> header(static_cast<std::size_t>(std::min<std::uint64_t>(size, 64)));
  source_->read(0, header.size(), header.data());
  const std::uint64_t end = header_end(header.data(), header.size(), size);
  const std::size_t had = header.size();
  header.resize(static_cast<std::size_t>(end));
  if (header.size() > had) source_->read(had, header.size() - had, header.data() + had);
  Header h = parse_header(header.data(), header.size(), size);
  metadata_ = std::move(h.metadata);
  tensors_ = std::move(h.tensors);
  data_begin_ = h.end;
}

SafetensorsFile::SafetensorsFile(const std::uint8_t* bytes, std::size_t size)
    : SafetensorsFile(std::make_shared<MemoryBytes>(bytes, size)) {}

std::map<std::string, TensorInfo> SafetensorsFile::check_header(const std::uint8_t* prefix, std::size_t available,
                                                                std::uint64_t file_size) {
  return parse_header(prefix, available, file_size).tensors;
}

const TensorInfo& SafetensorsFile::info(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw ModelFileError("missing tensor " + quote(name));
  return it->second;
}

std::vector<std::uint16_t> SafetensorsFile::take_halves(const std::string& name) const {
  const TensorInfo& t = info(name);
  if (t.dtype != DType::F16 && t.dtype != DType::BF16) return {};
  return source_->take_words(data_begin_ + t.begin, t.end - t.begin);
}

std::vector<float> SafetensorsFile::read_f32(const std::string& name) const {
  std::vector<float> out(info(name).numel());
  read_f32(name, out.data());
  return out;
}

void SafetensorsFile::read_f32(const std::string& name, float* out) const { read_f32(name, 0, info(name).numel(), out); }

void SafetensorsFile::read_f32(const std::string& name, std::size_t first, std::size_t n, float* out) const {
  const TensorInfo& t = info(name);
  if (first > t.numel() || n > t.numel() - first)
    throw Error("internal error: elements [" + std::to_string(first) + ", " + std::to_string(first + n) +
                ") asked of tensor " + quote(name) + ", which has " + std::to_string(t.numel()));
  const std::uint64_t at = data_begin_ + t.begin + (t.dtype == DType::F32 ? 4 : 2) * static_cast<std::uint64_t>(first);
  if (t.dtype == DType::F32) {
    source_->read(at, n * sizeof(float), reinterpret_cast<std::uint8_t*>(out));
    return;
  }
  // Half-width values are widened a slice at a time: the whole tensor is never held twice.
  constexpr std::size_t kSlice = 32768;
  std::vector<std::uint16_t> slice(std::min(n, kSlice));
  const bool bf16 = t.dtype == DType::BF16;
  for (std::size_t done = 0; done < n; done += slice.size()) {
    const std::size_t count = std::min(slice.size(), n - done);
    source_->read(at + 2 * done, 2 * count, reinterpret_cast<std::uint8_t*>(slice.data()));
    for (std::size_t i = 0; i < count; ++i) out[done + i] = bf16 ? bfloat16_to_float(slice[i]) : half_to_float(slice[i]);
  }
}

namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// C stdio, not std::ifstream: no iostreams in the engine (see decoding/options.cpp).
File open_regular_file(const std::string& path, std::uint64_t& size) {
  const std::string name = "'" + printable(path) + "'";
  File in(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!in) throw Error("cannot open file " + name + ": " + std::strerror(errno));
  // fopen() opens a directory too, and ftell() then reports a size no read can deliver.
  struct stat st;
  if (fstat(fileno(in.get()), &st) != 0) throw Error("cannot read file " + name + ": " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw Error("cannot read file " + name + ": it is a directory");
  if (!S_ISREG(st.st_mode)) throw Error("cannot read file " + name + ": it is not a regular file");
  size = static_cast<std::uint64_t>(st.st_size);
  return in;
}

// Appends the file's next `count` bytes to `bytes`.
void read_more(std::FILE* in, std::vector<std::uint8_t>& bytes, std::uint64_t count, const std::string& path) {
  const std::size_t at = bytes.size();
  if (count > bytes.max_size() - at) throw std::bad_alloc();
  bytes.resize(at + static_cast<std::size_t>(count));
  if (count > 0 && std::fread(bytes.data() + at, 1, static_cast<std::size_t>(count), in) != count)
    throw Error("cannot read file '" + printable(path) + "'");
}

}  // namespace

std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
  std::uint64_t size = 0;
  const File in = open_regular_file(path, size);
  std::vector<std::uint8_t> bytes;
  read_more(in.get(), bytes, size, path);
  return bytes;
}

std::vector<std::uint8_t> read_safetensors_file(const std::string& path) {
  std::uint64_t size = 0;
  const File in = open_regular_file(path, size);
  std::vector<std::uint8_t> bytes;
  read_more(in.get(), bytes, std::min<std::uint64_t>(size, 8), path);
  const std::uint64_t end = header_end(bytes.data(), bytes.size(), size);
  read_more(in.get(), bytes, end - bytes.size(), path);
  SafetensorsFile::check_header(bytes.data(), bytes.size(), size);
  read_more(in.get(), bytes, size - end, path);
  return bytes;
}

}  // namespace attnscope
