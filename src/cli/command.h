#pragma once
// What every attnscope-cli subcommand does around its work, written once: a bad command line
// prints the error and the usage (exit 2); an Error while running prints the error (exit 2);
// running out of memory or any other exception is said so (exit 1), never an abort.
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/quote.h"

namespace attnscope::cli {

// parse(argc, argv) -> Args (throws Error for a bad command line); run(args) -> exit status.
template <class Parse, class Run>
int run_command(int argc, char** argv, const char* usage, Parse parse, Run run) {
  decltype(parse(argc, argv)) args;
  try {
    args = parse(argc, argv);
  } catch (const Error& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << "\nusage:\n" << usage;
    return 2;
  }
  try {
    return run(args);
  } catch (const Error& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "attnscope-cli: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {  // a bug: said so, never an abort
    std::cerr << "attnscope-cli: internal error: " << printable(e.what()) << "\n";
    return 1;
  }
}

// The lines of a text file (a trailing \r dropped); `what` names the file in the error.
inline std::vector<std::string> read_lines(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open " + what + " '" + path + "'");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

}  // namespace attnscope::cli
