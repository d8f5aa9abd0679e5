#pragma once
// What every attnscope-cli subcommand does around its work, written once: a bad command line
// prints the error and the usage (exit 2); an Error while running prints the error (exit 2).
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.h"

namespace attnscope::cli {

// parse(argc, argv) -> Args (throws Error for a bad command line); run(args) -> exit status.
template <class Parse, class Run>
int run_command(int argc, char** argv, const char* usage, Parse parse, Run run) {
  decltype(parse(argc, argv)) args;
  try {
    args = parse(argc, argv);
  } catch (const Error& e) {
    std::cerr << "attnscope-cli: error: " << e.what() << "\nusage:\n" << usage;
    return 2;
  }
  try {
    return run(args);
  } catch (const Error& e) {
    std::cerr << "attnscope-cli: error: " << e.what() << "\n";
    return 2;
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
