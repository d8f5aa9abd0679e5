#pragma once
// What a file that is not a safetensors model looks like, from its first bytes: the words a
// refusal uses, so that a PNG renamed .safetensors is called a PNG image rather than a header
// length of 727905341920923785. The engine's one copy of these words: the CLI, the JS API and
// the page all show them through the engine's refusal.
#include <cstddef>
#include <cstdint>
#include <string>

namespace attnscope {

// What describe_file_start says of bytes it does not recognise.
extern const char* const kNoSafetensorsHeader;

// "it starts with the bytes of a PNG image", ..., or kNoSafetensorsHeader for bytes it does not
// recognise. `bytes` are the file's first `size` bytes (8 suffice).
std::string describe_file_start(const std::uint8_t* bytes, std::size_t size);

}  // namespace attnscope
