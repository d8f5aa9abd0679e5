#pragma once
// Every failure the engine reports is an attnscope::Error (a std::runtime_error), so callers
// (the CLI, the JS bindings) can catch one type and show its message. The subclasses say
// which side is at fault: the model file, the caller's input, or an index out of range.
#include <stdexcept>
#include <string>

namespace attnscope {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// The model file is unreadable, inconsistent or unsupported.
class ModelFileError : public Error {
 public:
  explicit ModelFileError(const std::string& detail)
      : Error("invalid model file: " + detail), detail_(detail) {}
  const std::string& detail() const { return detail_; }

 private:
  std::string detail_;  // the message without the "invalid model file: " prefix
};

// The caller's input cannot be processed (empty sentence, too long, ...).
class InputError : public Error {
 public:
  using Error::Error;
};

// A layer, head, step or token index is outside its valid range.
class IndexError : public Error {
 public:
  using Error::Error;
};

}  // namespace attnscope
