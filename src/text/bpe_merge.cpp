#include "text/bpe_merge.h"

#include <queue>

namespace attnscope {

void BpeMergeTable::add(int left, int right, Merge merge, bool keep_first) {
  if (keep_first) merges_.emplace(key(left, right), merge);
  else merges_[key(left, right)] = merge;
}

const BpeMergeTable::Merge* BpeMergeTable::find(int left, int right) const {
  if (left < 0 || right < 0) return nullptr;
  const auto it = merges_.find(key(left, right));
  return it == merges_.end() ? nullptr : &it->second;
}

std::vector<int> bpe_merge(std::vector<int> symbols, const BpeMergeTable& table, MergeOrder order,
                           std::vector<int>* sizes) {
  const int n = static_cast<int>(symbols.size());
  std::vector<int> size(n, 1);
  if (n < 2) {
    if (sizes) *sizes = size;
    return symbols;
  }
  // The symbols form a list linked through next/prev (-1: none); a merge keeps its left symbol's
  // slot and unlinks the right one, so slots keep the text's order.
  std::vector<int> next(n), prev(n);
  for (int i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
  }
  // A pair seen adjacent at some time; it is still a candidate when its slots are still linked
  // and hold the same symbols.
  struct Candidate {
    int rank, pos, left, right, result;
  };
  const auto after = [](const Candidate& a, const Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(after)> queue(after);
  const auto offer = [&](int pos) {
    const int right = next[pos];
    if (right < 0) return;
    if (const BpeMergeTable::Merge* m = table.find(symbols[pos], symbols[right]))
      queue.push({m->rank, pos, symbols[pos], symbols[right], m->result});
  };
  for (int i = 0; i + 1 < n; ++i) offer(i);

  // All occurrences of one rank are merged before any pair they create is looked at, even one of
  // a lower rank (the reference's rule): so each round takes every candidate of the lowest rank
  // out of the queue first, and a symbol made in this round takes no part in another merge of it.
  constexpr int kGone = -1;  // a slot unlinked by a merge
  std::vector<int> made_in(n, -1);
  std::vector<Candidate> round;
  for (int r = 0; !queue.empty(); ++r) {
    const int rank = queue.top().rank;
    round.clear();
    while (!queue.empty() && queue.top().rank == rank && (round.empty() || order == MergeOrder::ByRank)) {
      round.push_back(queue.top());
      queue.pop();
    }
    for (const Candidate& c : round) {
      const int right = next[c.pos];
      if (right < 0 || symbols[c.pos] != c.left || symbols[right] != c.right || made_in[c.pos] == r ||
          made_in[right] == r)
        continue;
      symbols[c.pos] = c.result;
      size[c.pos] += size[right];
      made_in[c.pos] = r;
      symbols[right] = kGone;
      next[c.pos] = next[right];
      if (next[right] >= 0) prev[next[right]] = c.pos;
      if (prev[c.pos] >= 0) offer(prev[c.pos]);
      offer(c.pos);
    }
  }
  std::vector<int> out;
  if (sizes) sizes->clear();
  for (int i = 0; i >= 0; i = next[i]) {
    out.push_back(symbols[i]);
    if (sizes) sizes->push_back(size[i]);
  }
  return out;
}

std::vector<int> bpe_merge_reference(std::vector<int> symbols, const BpeMergeTable& table) {
  while (symbols.size() > 1) {
    const BpeMergeTable::Merge* best = nullptr;
    int left = 0, right = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const BpeMergeTable::Merge* m = table.find(symbols[i], symbols[i + 1]);
      if (m && (!best || m->rank < best->rank)) {
        best = m;
        left = symbols[i];
        right = symbols[i + 1];
      }
    }
    if (!best) break;
    std::vector<int> merged;
    merged.reserve(symbols.size());
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
        merged.push_back(best->result);
        ++i;
      } else {
        merged.push_back(symbols[i]);
      }
    }
    symbols = std::move(merged);
  }
  return symbols;
}

}  // namespace attnscope
