#include "io/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/quote.h"

namespace attnscope {

void MemoryBytes::read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const {
  if (offset > size_ || n > size_ - offset) throw Error("internal error: a read past the end of a model's bytes");
  if (n > 0) std::memcpy(out, data_ + offset, n);
}

FileBytes::FileBytes(const std::string& path) : path_(path) {
  const std::string name = "'" + printable(path) + "'";
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error("cannot open file " + name + ": " + std::strerror(errno));
  // open() opens a directory too, and its size is no file's.
  struct stat st;
  const char* why = nullptr;
  if (fstat(fd_, &st) != 0) why = std::strerror(errno);
  else if (S_ISDIR(st.st_mode)) why = "it is a directory";
  else if (!S_ISREG(st.st_mode)) why = "it is not a regular file";
  if (why) {
    ::close(fd_);
    throw Error("cannot read file " + name + ": " + why);
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
}

FileBytes::~FileBytes() { ::close(fd_); }

void FileBytes::read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const {
  while (n > 0) {
    const ssize_t got = ::pread(fd_, out, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      throw Error("cannot read file '" + printable(path_) + "'" + (got < 0 ? std::string(": ") + std::strerror(errno) : ": it is shorter than when it was opened"));
    out += got;
    offset += static_cast<std::uint64_t>(got);
    n -= static_cast<std::size_t>(got);
  }
}

}  // namespace attnscope
