#include "cli/train_command.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <new>
#include <string>

#include "core/error.h"
#include "core/json.h"
#include "core/quote.h"
#include "io/safetensors.h"
#include "train/family_options.h"
#include "train/trainable.h"
#include "train/trainer.h"

namespace attnscope::cli {

std::string train_usage() {
  std::string usage =
      "  attnscope-cli train --pairs FILE.csv --epochs N --seed S --out MODEL.safetensors [options]\n"
      "      train a model on 'source,target' lines (fresh word-level model, or --model FILE to\n"
      "      continue from one, of any family that trains) and write it; prints loss and exact matches\n"
      "      per epoch on stderr\n"
      "      --lr X (1e-3)  --batch-tokens N (24)  --label-smoothing X (0)  --dropout X (0)\n"
      "      --clip-norm X (0: off)  --warmup N (inverse-sqrt schedule; default constant lr)\n"
      "      --stop-at-exact (stop at N/N)  --family " +
      train::trainable_family_names("", "|", "|") + " (" + train::default_trainable_family().architecture + ")\n";
  for (const FamilyRegistration& r : registered_families())
    if (r.training) usage += r.training->help;
  return usage;
}

namespace {

double number(const std::string& flag, const std::string& value) {
  try {
    std::size_t used = 0;
    const double v = std::stod(value, &used);
    if (used == value.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw Error(flag + " needs a number, got '" + value + "'");
}

int count(const std::string& flag, const std::string& value) {
  const double v = number(flag, value);
  if (!(v >= 0 && v <= 1e9) || v != static_cast<int>(v)) throw Error(flag + " needs a non-negative integer, got '" + value + "'");
  return static_cast<int>(v);
}

// The pairs file, line by line through the engine's PairsReader: a bad line stops the read
// there, and no line is read further than the longest a pair may have, so neither a huge file
// nor one endless line is ever held whole.
std::vector<train::TrainPair> read_pairs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + printable(path) + "'");
  train::PairsReader reader;
  std::streambuf& buf = *in.rdbuf();
  std::string line;
  for (int c = buf.sbumpc(); c != std::char_traits<char>::eof();) {
    line.clear();
    for (; c != std::char_traits<char>::eof() && c != '\n' && line.size() <= train::kMaxPairLineBytes; c = buf.sbumpc())
      line += static_cast<char>(c);
    reader.add_line(line);  // a line cut at kMaxPairLineBytes + 1 bytes is refused as too long
    if (c == '\n') c = buf.sbumpc();
  }
  if (in.bad()) throw Error("cannot read '" + printable(path) + "'");
  return reader.finish();
}

}  // namespace

int train_main(int argc, char** argv) {
  std::string pairs_path, out_path, model_path;
  int epochs = -1;
  bool stop_at_exact = false;
  std::string family = train::default_trainable_family().architecture;
  nlohmann::json architecture = nlohmann::json::object();  // the family's options, by their JSON names
  std::vector<std::string> given;                            // those names, in the order given
  train::TrainOptions options;
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string arg = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Error(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--pairs") pairs_path = value();
      else if (arg == "--out") out_path = value();
      else if (arg == "--model") model_path = value();
      else if (arg == "--epochs") epochs = count(arg, value());
      else if (arg == "--seed") options.seed = static_cast<std::uint64_t>(count(arg, value()));
      else if (arg == "--lr") options.lr = number(arg, value());
      else if (arg == "--batch-tokens") options.batch_tokens = count(arg, value());
      else if (arg == "--family") family = value();
      else if (const train::OwnedOption o = train::architecture_option_of_flag(arg); o.option) {
        const ArchitectureOption& option = *o.option;
        if (option.kind == ArchitectureOption::Kind::Integer) architecture[option.name] = count(arg, value());
        else if (option.kind == ArchitectureOption::Kind::Text) architecture[option.name] = value();
        else architecture[option.name] = option.flag_sets;
        given.push_back(option.name);
      }
      else if (arg == "--label-smoothing") options.label_smoothing = static_cast<float>(number(arg, value()));
      else if (arg == "--dropout") options.dropout = static_cast<float>(number(arg, value()));
      else if (arg == "--clip-norm") options.clip_norm = number(arg, value());
      else if (arg == "--warmup")
        options.schedule = {train::Schedule::Kind::InverseSqrt, count(arg, value())};
      else if (arg == "--stop-at-exact") stop_at_exact = true;
      else throw Error("unknown option " + arg);
    }
    if (pairs_path.empty() || out_path.empty() || epochs < 0) throw Error("train needs --pairs, --epochs and --out");
    const FamilyRegistration* trained = train::trainable_family(family);
    if (!trained)
      throw Error("--family must be " + train::trainable_family_names("", " or ") + ", got '" + family + "'");
    const std::string misplaced = train::misplaced_option(
        *trained, given, [](const ArchitectureOption& o) { return std::string(o.flag); },
        [](const FamilyRegistration& owner) { return "add --family " + std::string(owner.architecture); });
    if (!misplaced.empty()) throw Error(misplaced);
  } catch (const Error& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << "\nusage:\n" << train_usage();
    return 2;
  }
  try {
    const auto pairs = read_pairs(pairs_path);
    std::unique_ptr<train::Trainable> start;
    if (model_path.empty()) {
      start = train::fresh_trainable(pairs, family, architecture, options.seed);
    } else {
      const std::vector<std::uint8_t> bytes = read_safetensors_file(model_path);
      start = train::trainable_from_bytes_any(bytes.data(), bytes.size());
    }
    train::Trainer trainer(std::move(start), pairs, options);
    train::EpochReport r;
    double seconds = 0;
    for (int e = 0; e < epochs; ++e) {
      r = trainer.epoch();
      seconds += r.seconds;
      // 8 decimals: enough to compare with another build's losses (tests/js/train.test.js); the
      // epoch's time in microseconds, for the training benchmark (tests/bench/train_bench.mjs).
      std::cerr << "epoch " << r.epoch << " loss " << std::fixed << std::setprecision(8) << r.loss << " exact "
                << r.exact << "/" << r.total << " (" << std::setprecision(6) << r.seconds << " s)\n";
      if (stop_at_exact && r.exact == r.total) break;
    }
    const auto bytes = trainer.export_bytes();
    std::ofstream out(out_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw Error("cannot write '" + out_path + "'");
    std::cerr << "wrote " << out_path << " after " << trainer.epochs_done() << " epochs (" << std::setprecision(2)
              << seconds << " s of training): " << r.exact << "/" << r.total << " exact\n";
    return 0;
  } catch (const Error& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "attnscope-cli: error: out of memory (a smaller model or corpus may fit)\n";
    return 1;
  } catch (const std::exception& e) {  // a bug: said so, never an abort
    std::cerr << "attnscope-cli: internal error: " << printable(e.what()) << "\n";
    return 1;
  }
}

}  // namespace attnscope::cli
