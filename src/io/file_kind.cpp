#include "io/file_kind.h"

#include <cstring>

namespace attnscope {

const char* const kNoSafetensorsHeader = "it does not start with a safetensors header";

namespace {

struct Magic {
  const char* bytes;
  std::size_t size;
  const char* says;
};

// Files people pick or link by mistake: images and documents renamed, a web page or a JSON error
// saved in place of the download, an archive, a Git LFS pointer checked out without its object,
// and PyTorch's own checkpoints (a ZIP archive since PyTorch 1.6, a pickle before it).
constexpr Magic kMagics[] = {
    {"\x89PNG\r\n\x1a\n", 8, "it starts with the bytes of a PNG image"},
    {"\xff\xd8\xff", 3, "it starts with the bytes of a JPEG image"},
    {"GIF87a", 6, "it starts with the bytes of a GIF image"},
    {"GIF89a", 6, "it starts with the bytes of a GIF image"},
    {"%PDF-", 5, "it starts with the bytes of a PDF document"},
    {"PK\x03\x04", 4,
     "it starts with the bytes of a ZIP archive, as a PyTorch checkpoint (pytorch_model.bin) does: "
     "convert a Hugging Face model with models/convert/convert_hf.py"},
    {"PK\x05\x06", 4, "it starts with the bytes of an empty ZIP archive"},
    {"\x80\x02", 2,
     "it starts with the bytes of a Python pickle, as a legacy PyTorch checkpoint does: "
     "convert a Hugging Face model with models/convert/convert_hf.py"},
    {"\x1f\x8b", 2, "it starts with the bytes of a gzip archive: decompress it first"},
    {"version https://git-lfs", 23, "it is a Git LFS pointer, not the file it points to: run git lfs pull"},
};

bool starts_with(const std::uint8_t* bytes, std::size_t size, const Magic& m) {
  return size >= m.size && std::memcmp(bytes, m.bytes, m.size) == 0;
}

}  // namespace

std::string describe_file_start(const std::uint8_t* bytes, std::size_t size) {
  for (const Magic& m : kMagics)
    if (starts_with(bytes, size, m)) return m.says;
  // Text files: the first byte that is not white space.
  std::size_t i = 0;
  while (i < size && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n')) ++i;
  if (i < size && bytes[i] == '<') return "it starts with '<', as an HTML page does (a web page saved instead of the model?)";
  if (i < size && (bytes[i] == '{' || bytes[i] == '['))
    return std::string("it starts with '") + char(bytes[i]) + "', as a JSON text does";
  return kNoSafetensorsHeader;
}

}  // namespace attnscope
