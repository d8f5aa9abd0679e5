// The description every family can have: its site table in words and blocks. The helpers are
// the phrases the families' own descriptions share (src/families/*/describe.cpp).
#include "model/architecture_description.h"

#include "core/json.h"
#include "model/model.h"

namespace attnscope {

namespace description {

std::string plural(int n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many.empty() ? one + "s" : many);
}

std::string vocabulary_unit(const Model& model) {
  // The type as the tokenizer's metadata names it ("word", "bpe", "sentencepiece", ...): every
  // tokenizer writes its own (Tokenizer::from_json reads it).
  const nlohmann::json j = parse_json(model.tokenizer->to_json(), "tokenizer metadata", JsonSource::ModelFile);
  return j.at("type").get<std::string>() == "word" ? "words" : "pieces";
}

std::string vocabulary(const Model& model) {
  return "vocabulary " + std::to_string(model.src_vocab.size()) + " source, " + std::to_string(model.tgt_vocab.size()) +
         " target " + vocabulary_unit(model);
}

}  // namespace description

namespace {

// ASCII letters only: a label is UTF-8 and its other bytes stay as they are.
std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

}  // namespace

ArchitectureDescription describe_from_sites(const Model& model) {
  using description::plural;
  const std::string& name = model.config.architecture;
  ArchitectureDescription d;
  d.family = name + " model";
  std::string sites;
  for (const AttentionSiteInfo& s : model.sites()) {
    const std::string shape = plural(s.layers, "layer") + " × " + plural(s.heads, "head");
    sites += (sites.empty() ? "" : ", ") + lower(s.label) + " (" + shape + ")";
    d.blocks.push_back({s.name, s.queries == Side::Source ? "Encoder" : "Decoder", s.label, shape});
  }
  d.words = name + " model with " + (sites.empty() ? "no attention" : sites) + "; " + description::vocabulary(model) + ".";
  return d;
}

ArchitectureDescription ModelFamily::describe(const Model& model) const { return describe_from_sites(model); }

}  // namespace attnscope
