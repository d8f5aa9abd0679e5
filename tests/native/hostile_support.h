#pragma once
// Hostile inputs built at run time for the hostile_*_test.cpp files (nothing hostile is
// committed): model files derived from a golden one with a splice in their JSON, deeply nested
// JSON text, temporary files, and attnscope-cli run with its stderr and exit status.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/model.h"
#include "test_support.h"

namespace attnscope::hostile {

using testing::json;
using Bytes = std::vector<std::uint8_t>;

// A value nested `depth` arrays deep: [[[...]]].
inline std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// The byte offset at which `text` first nests `depth` arrays and objects deep, counted here
// independently of the engine: a bracket inside a string (a header's metadata strings hold
// whole JSON documents) does not count.
inline std::size_t offset_of_depth(const std::string& text, int depth) {
  int d = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++d == depth) return i;
    } else if (c == ']' || c == '}') {
      --d;
    }
  }
  return std::string::npos;
}

// `text` with the JSON string "@" (quotes included) replaced by `value`: how a nested value is
// spliced into a document nlohmann built (it would recurse on a 100,000-deep value itself).
inline std::string splice(std::string text, const std::string& value) {
  const std::size_t at = text.find("\"@\"");
  EXPECT_NE(at, std::string::npos) << "no placeholder in " << text.substr(0, 200);
  return at == std::string::npos ? text : text.replace(at, 3, value);
}

inline Bytes golden_bytes(const std::string& name) { return read_file_bytes(testing::golden_path(name)); }

inline std::uint64_t header_length(const Bytes& b) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | b[i];
  return n;
}

inline json header_of(const Bytes& b) { return json::parse(b.begin() + 8, b.begin() + 8 + header_length(b)); }

// `b`'s data section under a new header text.
inline Bytes with_header(const Bytes& b, const std::string& header_text) {
  Bytes out(8);
  const std::uint64_t n = header_text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  out.insert(out.end(), header_text.begin(), header_text.end());
  out.insert(out.end(), b.begin() + 8 + header_length(b), b.end());
  return out;
}

// The error a load gives (the test fails if it loads, or throws anything but a ModelFileError).
inline std::string load_error(const Bytes& bytes) {
  try {
    Model::load_bytes(bytes.data(), bytes.size());
  } catch (const ModelFileError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ModelFileError: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the hostile file loaded";
  return "";
}

// A file in the test's temporary folder, removed when this goes out of scope.
class TempFile {
 public:
  explicit TempFile(const std::string& name, const std::string& contents = "") {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/attnscope-hostile-" + std::to_string(getpid()) + "-" + name;
    std::ofstream(path_, std::ios::binary) << contents;
  }
  TempFile(const std::string& name, const Bytes& bytes) : TempFile(name) {
    std::ofstream(path_, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct CliRun {
  int status = -1;      // exit status; 128 + N when killed by signal N
  std::string out, err;
};

// Builds with AddressSanitizer reserve terabytes of address space: no address-space limit there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCanLimitAddressSpace = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCanLimitAddressSpace = false;
#else
constexpr bool kCanLimitAddressSpace = true;
#endif
#else
constexpr bool kCanLimitAddressSpace = true;
#endif

// attnscope-cli with `args` (already shell-quoted), in a shell that first limits the address
// space to `limit_mb` (0: no limit), so that a test can assert that refusing an input does not
// allocate out of proportion to it.
inline CliRun run_cli(const std::string& args, int limit_mb = 0) {
  TempFile out("stdout"), err("stderr");
  std::string command = std::string(ATTNSCOPE_CLI_PATH) + " " + args + " >" + out.path() + " 2>" + err.path();
  if (limit_mb > 0 && kCanLimitAddressSpace) command = "ulimit -v " + std::to_string(limit_mb * 1024) + "; " + command;
  const int raw = std::system(command.c_str());  // /bin/sh -c command
  CliRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  r.out = read(out.path());
  r.err = read(err.path());
  return r;
}

// The bytes of `text` that a terminal would obey or a C string would stop at: none may reach
// a message or the CLI's text output.
inline bool has_control_bytes(const std::string& text) {
  for (unsigned char c : text)
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

}  // namespace attnscope::hostile
