#pragma once
// A model's architecture as the page shows it: one sentence in words and a diagram of blocks in
// columns with labelled links between them. Each family writes its own (ModelFamily::describe,
// model/family.h) from its config, so that no reader (the page, the CLI) knows families by name.
// Everything here is plain text, never markup: a reader shows it as text.
#include <string>
#include <vector>

namespace attnscope {

struct Model;

struct ArchitectureDescription {
  // One box of the diagram. `id` is unique within a description and is what links name;
  // `column` is the diagram column it stands in ("Encoder", "Decoder"), read top to bottom.
  struct Block {
    std::string id, column, label, detail;
  };
  // An arrow between two blocks' ids, with its caption.
  struct Link {
    std::string from, to, label;
  };
  std::string family;  // the family in a few words: the diagram's title ("RNN encoder-decoder")
  std::string words;   // the architecture in one sentence
  std::vector<Block> blocks;
  std::vector<Link> links;
};

namespace description {

// "1 head", "2 heads"; `many` for an irregular plural.
std::string plural(int n, const std::string& one, const std::string& many = "");
// What the source tokenizer's vocabulary holds: "words" for a word-level tokenizer, "pieces" for
// every subword one (BPE, byte-level BPE, WordPiece, SentencePiece).
std::string vocabulary_unit(const Model& model);
// The vocabulary clause the encoder-decoder families end on: "vocabulary 18 source, 17 target
// words" (or "pieces": vocabulary_unit).
std::string vocabulary(const Model& model);

}  // namespace description

// What the site table says, for a family that does not describe itself: a block per site.
ArchitectureDescription describe_from_sites(const Model& model);

}  // namespace attnscope
