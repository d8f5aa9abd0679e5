// attnscope-cli: the native front end, used by people, benchmarks and the evaluation scripts.
// Its flags are a stable interface: scripts depend on them.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/head_importance.h"
#include "cli/attribution_json.h"
#include "cli/encoder_study_command.h"
#include "cli/bleu_by_length_command.h"
#include "cli/fill_mask_command.h"
#include "cli/generate.h"
#include "cli/json_output.h"
#include "cli/logit_lens_json.h"
#include "cli/train_command.h"
#include "core/json.h"
#include "core/quote.h"
#include "decoding/options_json.h"

namespace {

using namespace attnscope;

const char* kUsage =
    "usage:\n"
    "  attnscope-cli translate --model FILE [options] SENTENCE...\n"
    "  attnscope-cli translate --model FILE --input FILE [options]   (one sentence a line, one translation a line)\n"
    "  attnscope-cli generate --model FILE [options] PROMPT...\n"
    "      continue each prompt with a decoder-only language model; the options and --json are translate's\n"
    "      (a continuation stops at </s> or where the model's context is full)\n"
    "  attnscope-cli info --model FILE\n"
    "  attnscope-cli heads --model FILE --input SOURCES --refs REFERENCES [--limit N] [--bleu]\n"
    "      head-importance sweep: mask each head alone, print the change in log-likelihood per token (JSON);\n"
    "      --bleu also decodes greedily per masked head and prints the change in corpus BLEU\n"
    "decoding (a model file's generation defaults, shown by info, apply to what these flags leave out;\n"
    "          without them: greedy unless --beam or --sample):\n"
    "  --greedy                greedy decoding\n"
    "  --beam K                beam search of width K\n"
    "  --nbest N               return N hypotheses (beam); text output prints 'rank<TAB>score<TAB>translation'\n"
    "  --length-penalty A      GNMT length penalty ((5+len)/6)^A (beam; 0 = none)\n"
    "  --length-norm KIND      none | average | gnmt | power (score / len^A, Hugging Face's; default: gnmt\n"
    "                          when --length-penalty > 0, else none)\n"
    "  --early-stopping RULE   when beam search stops: bound (default) | heuristic | early | never\n"
    "                          (the last three: Hugging Face's early_stopping False, True, \"never\")\n"
    "  --forced-eos            the last token allowed is </s> (Hugging Face's forced_eos_token_id)\n"
    "  --renormalize           log-probabilities renormalised over the tokens not banned (renormalize_logits)\n"
    "  --sample                sample instead: --temperature T, --top-k K, --top-p P, --seed S\n"
    "  --max-length N          generate at most N tokens (--max-steps is the same)\n"
    "  --max-length-a A, --max-length-b B   also at most floor(A * source tokens + B)\n"
    "  --min-length N          no </s> before N tokens\n"
    "  --no-repeat-ngram N     no token may complete an N-gram the translation already has (0 = off)\n"
    "  --repetition-penalty X  a token already generated has its logit divided by X if > 0, else\n"
    "                          multiplied by X (1 = off; > 1 discourages repeats)\n"
    "  --prefix TEXT           force the translation to start with TEXT\n"
    "  --prepend-bos, --no-prepend-bos\n"
    "                          a decoder-only model's prompt (generate, heads, bleu-by-length): read it after\n"
    "                          <bos>, or without, whatever the model file's rule says (info: config.prepend_bos;\n"
    "                          absent: true); an empty prompt is <bos> alone either way\n"
    "  --interventions JSON    break the model on purpose, e.g. '{\"skip\": [\"crossAttention\"]}' or\n"
    "                          '{\"attention\": [{\"site\": \"cross\", \"pattern\": \"uniform\"}]}' (see docs/cli.md)\n"
    "model:\n"
    "  --int8                  run the decoder-step products on int8 weights: faster, approximate\n"
    "                          (the encoder stays exact; see docs/benchmarks.md)\n"
    "  --f32                   expand an F16 or BF16 file's weights to binary32 (default: 16 bits,\n"
    "                          as the file holds them; the same results, twice the memory): for A/B\n"
    "                          timing\n"
    "output:\n"
    "  --json                  one JSON object per sentence: n-best, per-step top-k and attention\n"
    "  --alternatives K        top-k alternatives per step in --json (default 5)\n"
    "  --beam-tree             add the beam tree (every candidate, its parent and status) to --json\n"
    "  --logit-lens K          add the logit lens to --json: per step and decoder layer, the top-K tokens\n"
    "                          and the chosen token's probability and rank\n"
    "exit status: 0 ok, 1 out of memory (or an internal error), 2 bad usage or unreadable model,\n"
    "             3 some sentence could not be translated\n";

struct Args {
  std::string command, model, input, prefix, refs, hyps, bins, translations;
  int limit = 0, logit_lens = 0;
  bool json = false, tree = false, length_norm_given = false, bleu = false, int8 = false, f32 = false;
  DecodeOptions decode;
  cli::AttributionRequest attribution;
  std::vector<std::string> sentences;
};

double parse_number(const std::string& flag, const std::string& value) {
  try {
    std::size_t used = 0;
    const double v = std::stod(value, &used);
    if (used == value.size()) return v;
  } catch (const std::exception&) {
  }
  throw Error(flag + " needs a number, got '" + value + "'");
}

int parse_count(const std::string& flag, const std::string& value) {
  const double v = parse_number(flag, value);
  // Range first: casting NaN or a double past int's range to int is undefined behaviour.
  if (!(v >= 0 && v <= 2147483647.0) || v != static_cast<int>(v))
    throw Error(flag + " needs a non-negative integer, got '" + value + "'");
  return static_cast<int>(v);
}

int parse_positive_count(const std::string& flag, const std::string& value) {
  const int v = parse_count(flag, value);
  if (v == 0) throw Error(flag + " needs a positive integer, got '" + value + "'");
  return v;
}

std::uint64_t parse_seed(const std::string& flag, const std::string& value) {
  const double v = parse_number(flag, value);
  if (!(v >= 0 && v <= 9007199254740991.0) || v != static_cast<double>(static_cast<std::uint64_t>(v)))
    throw Error(flag + " needs an integer in [0, 2^53), got '" + value + "'");
  return static_cast<std::uint64_t>(v);
}

// The decoding flags override `model_defaults` (the model's generation defaults: run() parses the
// arguments again once the model is loaded), which override the engine's own defaults.
Args parse_args(int argc, char** argv, const GenerationDefaults& model_defaults = GenerationDefaults{}) {
  if (argc < 2) throw Error("no command given");
  Args a;
  a.command = argv[1];
  a.decode = with_generation_defaults(DecodeOptions{}, model_defaults);
  a.decode.alternatives = 5;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    DecodeOptions& d = a.decode;
    if (arg == "--model") a.model = value();
    else if (arg == "--input") a.input = value();
    else if (arg == "--json") a.json = true;
    else if (arg == "--int8") a.int8 = true;
    else if (arg == "--f32") a.f32 = true;
    else if (arg == "--bleu") a.bleu = true;
    else if (arg == "--beam-tree") a.json = a.tree = true;
    else if (arg == "--logit-lens") a.json = true, a.logit_lens = parse_positive_count(arg, value());
    else if (arg == "--alternatives") d.alternatives = parse_count(arg, value());
    else if (arg == "--beam") d.strategy = Strategy::Beam, d.beam_size = parse_count(arg, value());
    else if (arg == "--nbest") d.nbest = parse_count(arg, value());
    else if (arg == "--length-penalty") d.alpha = parse_number(arg, value());
    else if (arg == "--length-norm") d.length_penalty = parse_length_penalty(value()), a.length_norm_given = true;
    else if (arg == "--early-stopping") d.early_stopping = parse_early_stopping(value());
    else if (arg == "--forced-eos") d.forced_eos = true;
    else if (arg == "--renormalize") d.renormalize = true;
    else if (arg == "--sample") d.strategy = Strategy::Sample;
    else if (arg == "--greedy") d.strategy = Strategy::Greedy;
    else if (arg == "--temperature") d.temperature = parse_number(arg, value());
    else if (arg == "--top-k") d.top_k = parse_count(arg, value());
    else if (arg == "--top-p") d.top_p = parse_number(arg, value());
    else if (arg == "--seed") d.seed = parse_seed(arg, value());
    else if (arg == "--max-length" || arg == "--max-steps") d.max_length = parse_count(arg, value());
    else if (arg == "--max-length-a") d.max_length_a = parse_number(arg, value());
    else if (arg == "--max-length-b") d.max_length_b = parse_number(arg, value());
    else if (arg == "--min-length") d.min_length = parse_count(arg, value());
    else if (arg == "--no-repeat-ngram") d.no_repeat_ngram_size = parse_count(arg, value());
    else if (arg == "--repetition-penalty") d.repetition_penalty = parse_number(arg, value());
    else if (arg == "--prefix") a.prefix = value();
    else if (arg == "--prepend-bos") d.prepend_bos = true;
    else if (arg == "--no-prepend-bos") d.prepend_bos = false;
    else if (arg == "--refs") a.refs = value();
    else if (arg == "--hyps") a.hyps = value();
    else if (arg == "--bins") a.bins = value();
    else if (arg == "--translations") a.translations = value();
    else if (arg == "--limit") a.limit = parse_count(arg, value());
    else if (arg == "--interventions") d.interventions = interventions_from_json(value());
    else if (cli::parse_attribution_flag(arg, value, a.attribution)) a.json = a.json || a.attribution.on;
    else if (arg.rfind("--", 0) == 0) throw Error("unknown option " + arg);
    else a.sentences.push_back(arg);
  }
  if (!a.length_norm_given && !model_defaults.length_penalty) a.decode.length_penalty = a.decode.alpha > 0 ? LengthPenalty::GNMT : LengthPenalty::None;
  const bool generates = a.command == "translate" || a.command == "generate";
  if (!generates && a.command != "info" && a.command != "heads" && a.command != "bleu-by-length")
    throw Error("unknown command '" + a.command + "'");
  if (a.command == "heads" && (a.input.empty() || a.refs.empty())) throw Error("heads needs --input and --refs");
  if (a.command == "bleu-by-length") {
    if (a.input.empty() || a.refs.empty()) throw Error("bleu-by-length needs --input and --refs");
    if (a.model.empty() == a.hyps.empty()) throw Error("bleu-by-length needs --model FILE (to translate) or --hyps FILE, one of them");
  } else if (a.model.empty()) {
    throw Error("--model FILE is required");
  }
  if (generates && a.input.empty() && a.sentences.empty())
    throw Error(a.command == "generate" ? "give a prompt to continue, or --input FILE"
                                        : "give a sentence to translate, or --input FILE");
  a.decode.validate();
  return a;
}

// The family's description of its architecture (model/architecture_description.h) as JSON.
nlohmann::json description_json(const ArchitectureDescription& d) {
  nlohmann::json blocks = nlohmann::json::array(), links = nlohmann::json::array();
  for (const ArchitectureDescription::Block& b : d.blocks)
    blocks.push_back({{"id", b.id}, {"column", b.column}, {"label", b.label}, {"detail", b.detail}});
  for (const ArchitectureDescription::Link& l : d.links) links.push_back({{"from", l.from}, {"to", l.to}, {"label", l.label}});
  return {{"family", d.family}, {"words", d.words}, {"blocks", blocks}, {"links", links}};
}

void print_info(const Model& model) {
  nlohmann::json info = {{"config", parse_json(model.config.to_json(), "config", JsonSource::ModelFile)},
                         {"tokenizer", parse_json(model.tokenizer->to_json(), "tokenizer", JsonSource::ModelFile)},
                         {"tgt_tokenizer", parse_json(model.tgt_tokenizer->to_json(), "tgt_tokenizer", JsonSource::ModelFile)},
                         {"generation", parse_json(model.generation.to_json(), "generation", JsonSource::ModelFile)},
                         {"src_vocab_size", model.src_vocab.size()},
                         {"tgt_vocab_size", model.tgt_vocab.size()},
                         {"architecture_description", description_json(model.family->describe(model))}};
  for (const char* key : {"name", "description"})
    if (model.metadata.count(key)) info[key] = model.metadata.at(key);
  std::cout << cli::json_text(info, 2) << "\n";
}

// Translates one sentence and prints it. A bad sentence is reported on stderr and leaves an
// empty output line, so that line i of the output still belongs to line i of the input.
bool translate_one(const std::shared_ptr<const Model>& model, const Args& args, const std::string& sentence) {
  DecodeOptions options = args.decode;
  options.capture.attention = options.capture.logits = args.json;
  options.capture.vectors = args.logit_lens > 0;  // the lens reads the residuals the steps record
  try {
    if (!args.prefix.empty()) {
      const Encoded prefix = encode(*model->tgt_tokenizer, model->tgt_vocab, args.prefix, model->config.special.unk);
      if (!prefix.unknown.empty()) throw InputError("--prefix has words the target vocabulary lacks: " + prefix.unknown[0]);
      options.prefix = prefix.ids;
    }
    Source source = prepare_source(*model, sentence, options.prepend_bos);
    DecodeSession session(model, std::move(source), options);
    session.run();
    if (args.json) {
      nlohmann::json j = cli::session_to_json(session, args.tree);
      if (args.logit_lens > 0) j["logit_lens"] = cli::logit_lens_to_json(logit_lens(session, args.logit_lens));
      if (args.attribution.on) j["attribution"] = cli::sentence_attribution_to_json(session, args.attribution);
      j["source"] = sentence;
      std::cout << cli::json_text(j) << "\n";
      return true;
    }
    const auto nbest = session.nbest();
    if (options.nbest == 1) {
      std::cout << printable(session.detokenize(nbest[0].tokens)) << "\n";
    } else {
      for (std::size_t i = 0; i < nbest.size(); ++i)
        std::cout << i << "\t" << std::fixed << std::setprecision(4) << nbest[i].normalized_score << "\t"
                  << printable(session.detokenize(nbest[i].tokens)) << "\n";
    }
    if (!session.source().unknown.empty()) {
      std::cerr << "attnscope-cli: warning: unknown words:";
      for (const std::string& w : session.source().unknown) std::cerr << " " << printable(w);
      std::cerr << "\n";
    }
    return true;
  } catch (const InputError& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << " (sentence: " << quote(sentence) << ")\n";
    std::cout << (args.json ? "{\"error\":" + cli::json_text(e.what()) + "}" : "") << "\n";
    return false;
  }
}

std::vector<std::string> read_lines(const std::string& path, int limit) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open input file '" + path + "'");
  std::vector<std::string> lines;
  std::string line;
  while ((limit == 0 || static_cast<int>(lines.size()) < limit) && std::getline(in, line)) lines.push_back(line);
  return lines;
}

void print_head_sweep(const Model& model, const Args& args) {
  const auto sources = read_lines(args.input, args.limit);
  const auto refs = read_lines(args.refs, args.limit);
  if (sources.size() != refs.size())
    throw Error("--input has " + std::to_string(sources.size()) + " lines but --refs has " + std::to_string(refs.size()));
  std::vector<DevPair> dev;
  for (std::size_t i = 0; i < sources.size(); ++i)
    dev.push_back({prepare_source(model, sources[i], args.decode.prepend_bos),
                   encode(*model.tgt_tokenizer, model.tgt_vocab, refs[i], model.config.special.unk).ids, refs[i]});
  HeadSweepOptions options;
  options.bleu = args.bleu;
  const HeadSweep sweep = head_importance_sweep(model, dev, options, [](int done, int total) {
    std::cerr << "\rattnscope-cli: heads " << done << "/" << total << (done == total ? "\n" : "") << std::flush;
  });
  nlohmann::json heads = nlohmann::json::array();
  for (const HeadImportance& h : sweep.heads) {
    heads.push_back({{"site", h.site}, {"layer", h.layer}, {"head", h.head}, {"delta_log_likelihood", h.delta_log_likelihood}});
    if (sweep.has_bleu) heads.back()["delta_bleu"] = h.delta_bleu;
  }
  nlohmann::json out{{"sentences", dev.size()}, {"tokens", sweep.tokens},
                     {"base_log_likelihood", sweep.base_log_likelihood}, {"heads", heads}};
  if (sweep.has_bleu) out["base_bleu"] = sweep.base_bleu;
  std::cout << cli::json_text(out, 1) << "\n";
}

int run(Args args, int argc, char** argv) {
  Model::LoadOptions load;
  load.int8 = args.int8;
  load.binary16 = !args.f32;
  if (args.command == "bleu-by-length")  // with --hyps, no model
    return cli::bleu_by_length_command(args.model.empty() ? nullptr : Model::load_file(args.model, load), args.decode,
                                       {args.input, args.refs, args.hyps, args.bins, args.translations, args.limit, args.json});
  const auto model = Model::load_file(args.model, load);
  if (!model->generation.empty()) args = parse_args(argc, argv, model->generation);
  if (args.command == "info") {
    print_info(*model);
    return 0;
  }
  if (args.command == "heads") {
    print_head_sweep(*model, args);
    return 0;
  }
  cli::check_command_fits_model(args.command, *model);
  cli::prepare_attribution(args.attribution, model, model->tgt_vocab);
  bool all_ok = true;
  for (const std::string& s : args.sentences) all_ok &= translate_one(model, args, s);
  if (!args.input.empty()) {
    std::ifstream in(args.input);
    if (!in) throw Error("cannot open input file '" + args.input + "'");
    std::string line;
    while (std::getline(in, line)) all_ok &= translate_one(model, args, line);
  }
  return all_ok ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "train") return attnscope::cli::train_main(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "fill-mask") return attnscope::cli::fill_mask_main(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "bert-study") return attnscope::cli::encoder_study_main(argc, argv);
  Args args;
  try {
    args = parse_args(argc, argv);
  } catch (const attnscope::Error& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << "\n" << kUsage << attnscope::cli::train_usage()
              << attnscope::cli::kFillMaskUsage << attnscope::cli::kEncoderStudyUsage
              << attnscope::cli::kBleuByLengthUsage << attnscope::cli::kAttributionUsage;
    return 2;
  }
  try {
    return run(args, argc, argv);
  } catch (const attnscope::Error& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "attnscope-cli: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "attnscope-cli: internal error: " << printable(e.what()) << "\n";
    return 1;
  }
}
