#include "cli/train_command.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <new>
#include <string>

#include "core/error.h"
#include "core/quote.h"
#include "io/safetensors.h"
#include "train/trainer.h"

namespace attnscope::cli {

const char* kTrainUsage =
    "  attnscope-cli train --pairs FILE.csv --epochs N --seed S --out MODEL.safetensors [options]\n"
    "      train a model on 'source,target' lines (fresh word-level model, or --model FILE to\n"
    "      continue from one, of either family) and write it; prints loss and exact matches per\n"
    "      epoch on stderr\n"
    "      --lr X (1e-3)  --batch-tokens N (24)  --label-smoothing X (0)  --dropout X (0)\n"
    "      --clip-norm X (0: off)  --warmup N (inverse-sqrt schedule; default constant lr)\n"
    "      --stop-at-exact (stop at N/N)  --family transformer|rnn|decoder_only (transformer)\n"
    "      --layers N (1)\n"
    "      transformer, decoder_only: --heads N (1)  --d-model N (64)  --d-ff N (2 d_model;\n"
    "           decoder_only: 0 for attention-only layers)\n"
    "      decoder_only (learns '<s> source target </s>'): --activation relu|gelu|gelu_tanh (gelu_tanh)\n"
    "           --norm pre|post (pre)  --positions learned|sinusoidal (learned)  --untied\n"
    "      rnn: --cell gru|lstm (gru)  --attention bahdanau|luong|none (bahdanau)\n"
    "           --score additive|dot|scaled_dot|general|cosine|location (additive)  --d-embed N (32)\n"
    "           --d-hidden N (64)  --d-encoder N (d_hidden / directions)  --d-attention N (d_hidden)\n"
    "           --unidirectional  --input-feeding  --local-window N (0: global attention)\n";

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
  train::Architecture arch;
  train::RnnArchitecture rnn;
  train::DecoderOnlyArchitecture decoder_only;
  std::string family = "transformer";
  // One given of each family's own, for the message when the chosen family has no such flag.
  std::string transformer_flag, rnn_flag, decoder_only_flag;
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
      else if (arg == "--layers") arch.layers = rnn.layers = decoder_only.layers = count(arg, value());
      else if (arg == "--heads") arch.heads = decoder_only.heads = count(arg, value()), transformer_flag = arg;
      else if (arg == "--d-model") arch.d_model = decoder_only.d_model = count(arg, value()), transformer_flag = arg;
      else if (arg == "--d-ff") arch.d_ff = decoder_only.d_ff = count(arg, value()), transformer_flag = arg;
      else if (arg == "--activation") decoder_only.activation = value(), decoder_only_flag = arg;
      else if (arg == "--norm") decoder_only.norm = value(), decoder_only_flag = arg;
      else if (arg == "--positions") decoder_only.positions = value(), decoder_only_flag = arg;
      else if (arg == "--untied") decoder_only.tied_output = false, decoder_only_flag = arg;
      else if (arg == "--cell") rnn.cell = value(), rnn_flag = arg;
      else if (arg == "--attention") rnn.attention = value(), rnn_flag = arg;
      else if (arg == "--score") rnn.score = value(), rnn_flag = arg;
      else if (arg == "--d-embed") rnn.d_embed = count(arg, value()), rnn_flag = arg;
      else if (arg == "--d-hidden") rnn.d_hidden = count(arg, value()), rnn_flag = arg;
      else if (arg == "--d-encoder") rnn.d_encoder = count(arg, value()), rnn_flag = arg;
      else if (arg == "--d-attention") rnn.d_attention = count(arg, value()), rnn_flag = arg;
      else if (arg == "--unidirectional") rnn.bidirectional = false, rnn_flag = arg;
      else if (arg == "--input-feeding") rnn.input_feeding = true, rnn_flag = arg;
      else if (arg == "--local-window") rnn.local_window = count(arg, value()), rnn_flag = arg;
      else if (arg == "--label-smoothing") options.label_smoothing = static_cast<float>(number(arg, value()));
      else if (arg == "--dropout") options.dropout = static_cast<float>(number(arg, value()));
      else if (arg == "--clip-norm") options.clip_norm = number(arg, value());
      else if (arg == "--warmup")
        options.schedule = {train::Schedule::Kind::InverseSqrt, count(arg, value())};
      else if (arg == "--stop-at-exact") stop_at_exact = true;
      else throw Error("unknown option " + arg);
    }
    if (pairs_path.empty() || out_path.empty() || epochs < 0) throw Error("train needs --pairs, --epochs and --out");
    if (family != "transformer" && family != "rnn" && family != "decoder_only")
      throw Error("--family must be transformer, rnn or decoder_only, got '" + family + "'");
    if (family == "rnn" && !transformer_flag.empty()) throw Error(transformer_flag + " is the transformer's: an RNN has none");
    if (family != "rnn" && !rnn_flag.empty()) throw Error(rnn_flag + " is the RNN's: add --family rnn");
    if (family != "decoder_only" && !decoder_only_flag.empty())
      throw Error(decoder_only_flag + " is the decoder-only model's: add --family decoder_only");
  } catch (const Error& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << "\nusage:\n" << kTrainUsage;
    return 2;
  }
  try {
    const auto pairs = read_pairs(pairs_path);
    std::unique_ptr<train::Trainable> start;
    if (model_path.empty()) {
      start = train::fresh_trainable(pairs, family, arch, rnn, decoder_only, options.seed);
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
