#pragma once
// A safetensors file that arrives in order, a piece at a time (a download), held in the form a
// loader reads it from: the header, then one buffer per tensor in the file's dtype, each allocated
// when its first byte arrives. Nothing else holds the file: the caller hands each piece over and
// may drop it. Once the whole file has arrived it is a ByteSource for Model::load, and a tensor's
// buffer is freed as soon as the loader has read every byte of it, so that the load moves the
// file into the model's weights a tensor at a time instead of holding both whole.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/byte_source.h"

namespace attnscope {

class StagedBytes : public ByteSource {
 public:
  // `file_size`: the whole file's size, as its header promises it (8 + N + the end of the last
  // tensor). The header is validated against it as soon as it has arrived (ModelFileError).
  explicit StagedBytes(std::uint64_t file_size);

  // Where the file's next bytes go: a writable span of at least one byte, to be filled and then
  // committed with commit(n), n up to its size. Throws ModelFileError once the file is complete:
  // a byte after its last tensor is trailing data.
  struct Span {
    std::uint8_t* data = nullptr;
    std::size_t size = 0;
  };
  Span next_span();
  // The next `n` bytes of next_span() were written. Throws ModelFileError when they complete a
  // header that is not valid for this file size.
  void commit(std::size_t n);
  // The file's next `n` bytes, through next_span()/commit(). Throws ModelFileError for bytes past
  // the end the header promises.
  void append(const std::uint8_t* data, std::size_t n);

  std::uint64_t received() const { return received_; }
  bool complete() const { return received_ == size_; }
  // Throws the ModelFileError a file of the bytes received so far gets (a header or a tensor
  // that lies outside it: "file truncated?") when the stream ended before the file did.
  void check_complete() const;
  // Bytes of tensors staged and not yet read by a loader (the header not counted).
  std::size_t staged_tensor_bytes() const;

  std::uint64_t size() const override { return size_; }
  // Throws Error when the file has not arrived whole, or for bytes already read once: a loader
  // reads each tensor's bytes once, and they are gone after it has.
  void read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const override;
  // A whole tensor nothing has read yet: its staged buffer itself, handed over.
  std::vector<std::uint16_t> take_words(std::uint64_t offset, std::size_t n) const override;

 private:
  struct Tensor {
    std::uint64_t begin = 0, end = 0;  // the tensor's bytes [begin, end) in the file
    // Its bytes, in words (every dtype's tensor is a whole number of them): empty until its first
    // byte arrives, freed once read, or handed over whole (take_words).
    mutable std::vector<std::uint16_t> words;
    std::uint8_t* bytes() const { return reinterpret_cast<std::uint8_t*>(words.data()); }
    mutable std::uint64_t read = 0;           // bytes a loader has read of it
  };
  void header_arrived();
  // The tensor whose bytes hold file offset `offset` (at or after the header's end).
  const Tensor& tensor_at(std::uint64_t offset) const;

  std::uint64_t size_;
  std::uint64_t received_ = 0;
  std::uint64_t header_end_ = 0;  // 8 + N once the first 8 bytes have arrived, else 0
  std::vector<std::uint8_t> header_;
  std::vector<Tensor> tensors_;  // in file order, once the header has arrived
  std::size_t arriving_ = 0;     // the tensor the next byte belongs to
};

}  // namespace attnscope
