// The JS loader's handle on a download in progress (Embind class StagedFile): each chunk of the
// model file is copied into its place in the engine as it arrives (io/staged_bytes.h), so the page
// holds one chunk at a time, never the file; a ModelHandle then loads from it (loadStaged). Each
// call returns its result or {error} (conversions.h). Inline for the reason bytes_of is
// (conversions.h: val::call's thread_local).
#pragma once

#include <algorithm>
#include <memory>

#include "conversions.h"
#include "core/error.h"
#include "io/staged_bytes.h"

namespace attnscope::bindings {

class StagedFile {
 public:
  // `file_size`: the file's size as its header promises it (web/model-header.js fileBytes).
  explicit StagedFile(double file_size)
      : bytes_(std::make_shared<StagedBytes>(file_size > 0 ? static_cast<std::uint64_t>(file_size) : 0)) {}

  // `chunk`, a Uint8Array: the file's next bytes. {error} when they break the file (a header
  // that is no model's, bytes after the last tensor).
  val append(const val& chunk) {
    return guarded([&] {
      if (!bytes_) throw Error("internal error: a staged model file was appended to after its load");
      const std::size_t n = chunk["length"].as<std::size_t>();
      for (std::size_t at = 0; at < n;) {
        const StagedBytes::Span span = bytes_->next_span();
        const std::size_t count = std::min(n - at, span.size);
        // Straight from the page's chunk into the tensor's staged buffer.
        val(emscripten::typed_memory_view(count, span.data)).call<void>("set", chunk.call<val>("subarray", at, at + count));
        bytes_->commit(count);
        at += count;
      }
      return val::undefined();
    });
  }

  // Bytes of the file that have arrived.
  double received() const { return static_cast<double>(bytes_->received()); }

  // The staged file, for ModelHandle::load_staged; null once it has been handed over.
  std::shared_ptr<StagedBytes> take() { return std::move(bytes_); }

 private:
  std::shared_ptr<StagedBytes> bytes_;
};

}  // namespace attnscope::bindings
