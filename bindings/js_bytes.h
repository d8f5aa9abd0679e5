#pragma once
// A model file's bytes where the page holds them, a Uint8Array outside the WebAssembly heap: the
// loader reads the header, then copies each tensor's range into the memory that keeps it (an F16
// tensor through a small buffer), so the file is never copied into the heap whole. Nothing holds
// the array after the load: the caller's is the only reference left.
// Inline for the reason bytes_of is (bindings/conversions.h: val::call's thread_local).
#include <emscripten/val.h>

#include <cstdint>

#include "io/byte_source.h"

namespace attnscope::bindings {

class JsBytes : public ByteSource {
 public:
  // `array`: a Uint8Array (the caller checked).
  explicit JsBytes(emscripten::val array)
      : array_(std::move(array)), size_(static_cast<std::uint64_t>(array_["length"].as<double>())) {}

  std::uint64_t size() const override { return size_; }

  void read(std::uint64_t offset, std::size_t n, std::uint8_t* out) const override {
    if (offset > size_ || n > size_ - offset) throw Error("internal error: a read past the end of a model's bytes");
    const emscripten::val part =
        array_.call<emscripten::val>("subarray", static_cast<double>(offset), static_cast<double>(offset + n));
    emscripten::val(emscripten::typed_memory_view(n, out)).call<void>("set", part);
  }

 private:
  emscripten::val array_;
  std::uint64_t size_;
};

}  // namespace attnscope::bindings
