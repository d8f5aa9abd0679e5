#pragma once
// Where a model file's bytes are read from, a range at a time: a buffer in memory, a file on disk
// (read tensor by tensor, never whole), or, in the bindings, the page's own copy of a download. A
// loader asks for the header, then for each tensor's bytes straight into the memory that keeps it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attnscope {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Copies bytes [offset, offset + n) into `out`. The caller keeps the range inside size();
  // throws Error when the bytes cannot be had (a read error, a file that shrank).
  virtual void read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const = 0;
  // Bytes [offset, offset + n) as 16-bit little-endian words, handed over without a copy where
  // the source holds exactly that range in a buffer of its own that nothing has read (a staged
  // download's tensor); empty where it does not, and the caller reads them instead.
  virtual std::vector<std::uint16_t> take_words(std::uint64_t offset, std::size_t n) const {
    (void)offset;
    (void)n;
    return {};
  }
};

// Bytes the caller holds; they must outlive the source.
class MemoryBytes : public ByteSource {
 public:
  MemoryBytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const override;
  const std::uint8_t* data() const { return data_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
};

// A regular file, kept open: each read is a positioned read of just that range. Throws Error
// naming the path when it cannot be opened, or is a directory or no regular file.
class FileBytes : public ByteSource {
 public:
  explicit FileBytes(const std::string& path);
  ~FileBytes() override;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  std::uint64_t size() const override { return size_; }
  void read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const override;

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace attnscope
