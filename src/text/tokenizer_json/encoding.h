#pragma once
// What encoding a text gives: tokens with their ids and offsets.
#include <cstddef>
#include <string>
#include <vector>

namespace attnscope::tokenizer_json {

struct Encoding {
  std::vector<int> ids;
  std::vector<std::string> pieces;  // each token's text (an unknown Unigram run: the text it covers)
  // Each token's bytes in the input, [begin, end); (0, 0) for a special token a post-processor adds.
  std::vector<std::pair<std::size_t, std::size_t>> offsets;
  std::vector<bool> special;  // added by the post-processor or an added special token

  void push(int id, std::string piece, std::size_t begin, std::size_t end, bool is_special) {
    ids.push_back(id);
    pieces.push_back(std::move(piece));
    offsets.emplace_back(begin, end);
    special.push_back(is_special);
  }
  std::size_t size() const { return ids.size(); }
};

}  // namespace attnscope::tokenizer_json
