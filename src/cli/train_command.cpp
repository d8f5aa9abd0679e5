#include "cli/train_command.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include "core/error.h"
#include "io/safetensors.h"
#include "train/trainer.h"

namespace attnscope::cli {

const char* kTrainUsage =
    "  attnscope-cli train --pairs FILE.csv --epochs N --seed S --out MODEL.safetensors [options]\n"
    "      train a transformer on 'source,target' lines (fresh word-level model, or --model FILE to\n"
    "      continue from one) and write it; prints loss and exact matches per epoch on stderr\n"
    "      --lr X (1e-3)  --batch-tokens N (24)  --layers N (1)  --heads N (1)  --d-model N (64)\n"
    "      --d-ff N (2 d_model)  --label-smoothing X (0)  --dropout X (0)  --clip-norm X (0: off)\n"
    "      --warmup N (inverse-sqrt schedule; default constant lr)  --stop-at-exact (stop at N/N)\n";

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

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "'");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int train_main(int argc, char** argv) {
  std::string pairs_path, out_path, model_path;
  int epochs = -1;
  bool stop_at_exact = false;
  train::Architecture arch;
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
      else if (arg == "--layers") arch.layers = count(arg, value());
      else if (arg == "--heads") arch.heads = count(arg, value());
      else if (arg == "--d-model") arch.d_model = count(arg, value());
      else if (arg == "--d-ff") arch.d_ff = count(arg, value());
      else if (arg == "--label-smoothing") options.label_smoothing = static_cast<float>(number(arg, value()));
      else if (arg == "--dropout") options.dropout = static_cast<float>(number(arg, value()));
      else if (arg == "--clip-norm") options.clip_norm = number(arg, value());
      else if (arg == "--warmup")
        options.schedule = {train::Schedule::Kind::InverseSqrt, count(arg, value())};
      else if (arg == "--stop-at-exact") stop_at_exact = true;
      else throw Error("unknown option " + arg);
    }
    if (pairs_path.empty() || out_path.empty() || epochs < 0) throw Error("train needs --pairs, --epochs and --out");
  } catch (const Error& e) {
    std::cerr << "attnscope-cli: error: " << e.what() << "\nusage:\n" << kTrainUsage;
    return 2;
  }
  try {
    const auto pairs = train::parse_pairs_csv(read_text(pairs_path));
    train::TrainableModel start;
    if (model_path.empty()) {
      start = train::fresh_model(pairs, arch, options.seed);
    } else {
      const std::vector<std::uint8_t> bytes = read_file_bytes(model_path);
      start = train::trainable_from_bytes(bytes.data(), bytes.size());
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
    std::cerr << "attnscope-cli: error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace attnscope::cli
