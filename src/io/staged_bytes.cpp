#include "io/staged_bytes.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.h"
#include "io/safetensors.h"

namespace attnscope {

StagedBytes::StagedBytes(std::uint64_t file_size) : size_(file_size) {}

StagedBytes::Span StagedBytes::next_span() {
  if (complete())
    throw ModelFileError("bytes of trailing data after the last tensor: the header says the file ends at byte " +
                         std::to_string(size_) + " (a safetensors file ends with its last tensor)");
  if (header_end_ == 0) {  // the header's length: its first 8 bytes (fewer in a file too short for them)
    header_.resize(8);
    return {header_.data() + received_, static_cast<std::size_t>(std::min<std::uint64_t>(8, size_) - received_)};
  }
  if (received_ < header_end_) {
    header_.resize(static_cast<std::size_t>(header_end_));
    return {header_.data() + received_, static_cast<std::size_t>(header_end_ - received_)};
  }
  Tensor& t = tensors_[arriving_];
  if (t.words.empty()) t.words.resize(static_cast<std::size_t>((t.end - t.begin + 1) / 2));
  return {t.bytes() + (received_ - t.begin), static_cast<std::size_t>(t.end - received_)};
}

void StagedBytes::commit(std::size_t n) {
  if (n == 0) return;
  if (n > next_span().size) throw Error("internal error: more bytes committed than a staged span holds");
  received_ += n;
  if (header_end_ == 0 && (received_ == 8 || received_ == size_)) {
    header_end_ = header_end(header_.data(), static_cast<std::size_t>(received_), size_);  // throws for no header
  }
  if (header_end_ != 0 && received_ == header_end_ && tensors_.empty()) header_arrived();
  while (arriving_ < tensors_.size() && received_ >= tensors_[arriving_].end) ++arriving_;
}

void StagedBytes::header_arrived() {
  const auto tensors = SafetensorsFile::check_header(header_.data(), header_.size(), size_);
  for (const auto& [name, info] : tensors)
    if (info.end > info.begin) tensors_.push_back({header_end_ + info.begin, header_end_ + info.end, {}, 0});
  // The header has checked that the tensors cover the data section exactly: in file order they
  // follow one another.
  std::sort(tensors_.begin(), tensors_.end(), [](const Tensor& a, const Tensor& b) { return a.begin < b.begin; });
}

void StagedBytes::check_complete() const {
  if (complete()) return;
  // The words of a file that ends where the stream did.
  const std::uint64_t had = std::min<std::uint64_t>(received_, header_.size());
  const std::uint64_t end = header_end(header_.data(), static_cast<std::size_t>(had), received_);
  SafetensorsFile::check_header(header_.data(), static_cast<std::size_t>(end), received_);
  throw ModelFileError("file truncated: " + std::to_string(received_) + " of its " + std::to_string(size_) +
                       " bytes arrived");
}

void StagedBytes::append(const std::uint8_t* data, std::size_t n) {
  while (n > 0) {
    const Span span = next_span();
    const std::size_t count = std::min(n, span.size);
    std::memcpy(span.data, data, count);
    commit(count);
    data += count;
    n -= count;
  }
}

const StagedBytes::Tensor& StagedBytes::tensor_at(std::uint64_t offset) const {
  auto it = std::upper_bound(tensors_.begin(), tensors_.end(), offset,
                             [](std::uint64_t at, const Tensor& t) { return at < t.begin; });
  return *std::prev(it);  // the data section's first tensor begins at header_end_
}

std::size_t StagedBytes::staged_tensor_bytes() const {
  std::size_t total = 0;
  for (const Tensor& t : tensors_) total += t.words.empty() ? 0 : static_cast<std::size_t>(t.end - t.begin);
  return total;
}

void StagedBytes::read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const {
  if (!complete()) throw Error("internal error: a model's bytes were read before all of them had arrived");
  if (offset > size_ || n > size_ - offset) throw Error("internal error: a read past the end of a model's bytes");
  while (n > 0) {
    std::size_t count = 0;
    if (offset < header_end_) {
      count = static_cast<std::size_t>(std::min<std::uint64_t>(n, header_end_ - offset));
      std::memcpy(out, header_.data() + offset, count);
    } else {
      const Tensor& t = tensor_at(offset);
      const std::uint64_t length = t.end - t.begin;
      count = static_cast<std::size_t>(std::min<std::uint64_t>(n, t.end - offset));
      if (t.words.empty() || t.read + count > length)
        throw Error("internal error: the bytes of the tensor at [" + std::to_string(t.begin) + ", " +
                    std::to_string(t.end) + ") of a model file were read twice, and a streamed file holds them once");
      std::memcpy(out, t.bytes() + (offset - t.begin), count);
      t.read += count;
      if (t.read == length) std::vector<std::uint16_t>().swap(t.words);
    }
    out += count;
    offset += count;
    n -= count;
  }
}

std::vector<std::uint16_t> StagedBytes::take_words(std::uint64_t offset, std::size_t n) const {
  if (!complete() || offset < header_end_) return {};
  const Tensor& t = tensor_at(offset);
  if (t.begin != offset || t.end - t.begin != n || n % 2 != 0 || t.read != 0 || t.words.empty()) return {};
  t.read = n;
  return std::move(t.words);
}

}  // namespace attnscope
