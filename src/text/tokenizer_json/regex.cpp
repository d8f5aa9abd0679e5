#include "text/tokenizer_json/regex.h"

#include <limits>

#include "core/error.h"
#include "core/quote.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace attnscope::tokenizer_json {
namespace {

constexpr std::size_t kNoMatch = std::numeric_limits<std::size_t>::max();
constexpr int kUnbounded = -1;
constexpr int kMaxRepeat = 1000;           // {n,m}: bounds above this are refused
constexpr std::size_t kMaxProgram = 50000;  // instructions, after {n,m} are written out

// Simple case folding for what the tokenizers' case-insensitive groups hold: the lower-case
// mapping where it is one code point, ſ as s, ẞ as ß, ς as σ.
char32_t fold(char32_t c) {
  if (c == 0x17F) return U's';
  if (c == 0x1E9E) return 0xDF;
  if (c == 0x3C2) return 0x3C3;
  const std::u32string l = unicode::lower(c);
  return l.size() == 1 ? l[0] : c;
}

bool item_matches(const Regex::ClassItem& item, char32_t c) {
  bool in = false;
  switch (item.kind) {
    case Regex::ClassItem::Range: in = c >= item.lo && c <= item.hi; break;
    case Regex::ClassItem::Categories: in = (item.categories >> static_cast<int>(unicode::category(c))) & 1u; break;
    case Regex::ClassItem::WhiteSpace: in = unicode::is_white_space(c); break;
    case Regex::ClassItem::Word: {
      const unicode::Category k = unicode::category(c);
      const char* name = unicode::category_name(k);
      in = name[0] == 'L' || name[0] == 'M' || k == unicode::Category::Nd || k == unicode::Category::Nl ||
           k == unicode::Category::Pc;
      break;
    }
  }
  return in != item.negated;
}

std::uint32_t bit(unicode::Category k) { return 1u << static_cast<int>(k); }

}  // namespace

bool Regex::CharClass::matches(char32_t c) const {
  const auto any = [&](char32_t x) {
    for (const ClassItem& item : items)
      if (item_matches(item, x)) return true;
    return false;
  };
  bool in = any(c);
  if (!in && icase) {
    const char32_t f = fold(c);
    in = (f != c && any(f)) || (f >= U'a' && f <= U'z' && any(f - 32));
  }
  return in != negated;
}

// Pattern text -> syntax tree -> program.
class RegexCompiler {
 public:
  RegexCompiler(Regex& re, const std::string& where) : re_(re), where_(where), p_(decode_utf8(re.pattern_)) {}

  void compile() {
    Node root = alternation(false);
    if (i_ < p_.size()) fail("has an unmatched ')'");
    emit(root);
    re_.program_.push_back({Regex::Instruction::Match});
  }

 private:
  struct Node {
    enum Kind { Class, Concat, Alt, Repeat, Look } kind;
    explicit Node(Kind k = Concat) : kind(k) {}
    int cls = 0;
    std::vector<Node> kids;
    int min = 0, max = 0;
    bool greedy = true, negated = false;
  };

  [[noreturn]] void fail(const std::string& what) const {
    throw ModelFileError(where_ + ": the regex " + quote(re_.pattern_) + " " + what + " (at character " +
                         std::to_string(i_) + ")");
  }
  [[noreturn]] void refuse(const std::string& construct) const {
    fail("uses " + construct + ", which this reader does not support");
  }
  bool at(char32_t c) const { return i_ < p_.size() && p_[i_] == c; }
  bool starts(const char32_t* s) const {
    for (std::size_t k = 0; s[k]; ++k)
      if (i_ + k >= p_.size() || p_[i_ + k] != s[k]) return false;
    return true;
  }

  Node alternation(bool icase) {
    Node alt{Node::Alt};
    alt.kids.push_back(sequence(icase));
    while (at(U'|')) {
      ++i_;
      alt.kids.push_back(sequence(icase));
    }
    return alt.kids.size() == 1 ? std::move(alt.kids[0]) : alt;
  }

  Node sequence(bool icase) {
    Node seq{Node::Concat};
    while (i_ < p_.size() && !at(U'|') && !at(U')')) seq.kids.push_back(quantified(icase));
    return seq;
  }

  int number() {
    if (i_ >= p_.size() || p_[i_] < U'0' || p_[i_] > U'9') fail("has a malformed {n,m} quantifier");
    long value = 0;
    while (i_ < p_.size() && p_[i_] >= U'0' && p_[i_] <= U'9') {
      value = value * 10 + static_cast<long>(p_[i_++] - U'0');
      if (value > kMaxRepeat) fail("repeats more than " + std::to_string(kMaxRepeat) + " times");
    }
    return static_cast<int>(value);
  }

  Node quantified(bool icase) {
    Node node = atom(icase);
    while (i_ < p_.size()) {
      int min, max;
      const char32_t q = p_[i_];
      if (q == U'?') min = 0, max = 1;
      else if (q == U'*') min = 0, max = kUnbounded;
      else if (q == U'+') min = 1, max = kUnbounded;
      else if (q == U'{') {
        ++i_;
        min = number();
        max = min;
        if (at(U',')) {
          ++i_;
          max = at(U'}') ? kUnbounded : number();
        }
        if (!at(U'}')) fail("has a malformed {n,m} quantifier");
        if (max != kUnbounded && max < min) fail("has a quantifier {n,m} with m < n");
      } else {
        break;
      }
      ++i_;
      Node rep{Node::Repeat};
      rep.min = min;
      rep.max = max;
      if (at(U'?')) {
        rep.greedy = false;
        ++i_;
      } else if (at(U'+')) {
        refuse("a possessive quantifier");
      }
      if (max == kUnbounded && can_be_empty(node)) refuse("a repetition of something that can match nothing");
      rep.kids.push_back(std::move(node));
      node = std::move(rep);
    }
    return node;
  }

  static bool can_be_empty(const Node& n) {
    switch (n.kind) {
      case Node::Class: return false;
      case Node::Look: return true;
      case Node::Repeat: return n.min == 0 || can_be_empty(n.kids[0]);
      case Node::Alt:
        for (const Node& k : n.kids)
          if (can_be_empty(k)) return true;
        return false;
      case Node::Concat:
        for (const Node& k : n.kids)
          if (!can_be_empty(k)) return false;
        return true;
    }
    return true;
  }

  Node class_node(Regex::CharClass cls) {
    Node n{Node::Class};
    n.cls = static_cast<int>(re_.classes_.size());
    re_.classes_.push_back(std::move(cls));
    return n;
  }

  Node atom(bool icase) {
    const char32_t c = p_[i_];
    if (c == U'(') return group(icase);
    if (c == U'[') return class_node(bracket(icase));
    if (c == U'.') {
      ++i_;
      Regex::CharClass any;
      any.negated = true;
      any.items.push_back({Regex::ClassItem::Range, false, U'\n', U'\n', 0});
      return class_node(std::move(any));
    }
    if (c == U'^' || c == U'$') refuse("an anchor '" + encode_utf8(c) + "'");
    if (c == U'*' || c == U'+' || c == U'?' || c == U'{') fail("has a quantifier with nothing to repeat");
    Regex::CharClass cls;
    cls.icase = icase;
    if (c == U'\\') {
      escape(cls.items, false);
    } else {
      ++i_;
      cls.items.push_back({Regex::ClassItem::Range, false, c, c, 0});
    }
    return class_node(std::move(cls));
  }

  Node group(bool icase) {
    ++i_;  // (
    Node inner;
    if (at(U'?')) {
      static constexpr char32_t kNonCapturing[] = U"?:", kCaseless[] = U"?i:", kCased[] = U"?-i:",
                                kAhead[] = U"?=", kNotAhead[] = U"?!", kBehind[] = U"?<", kAtomic[] = U"?>";
      if (starts(kNonCapturing)) {
        i_ += 2;
        inner = alternation(icase);
      } else if (starts(kCaseless)) {
        i_ += 3;
        inner = alternation(true);
      } else if (starts(kCased)) {
        i_ += 4;
        inner = alternation(false);
      } else if (starts(kAhead) || starts(kNotAhead)) {
        const bool negated = p_[i_ + 1] == U'!';
        i_ += 2;
        inner = Node{Node::Look};
        inner.negated = negated;
        inner.kids.push_back(alternation(icase));
      } else if (starts(kBehind)) {
        refuse(i_ + 2 < p_.size() && (p_[i_ + 2] == U'=' || p_[i_ + 2] == U'!') ? "a lookbehind" : "a named group");
      } else if (starts(kAtomic)) {
        refuse("an atomic group");
      } else {
        refuse("a group option '(?...'");
      }
    } else {
      inner = alternation(icase);  // a capturing group: only the whole match counts here
    }
    if (!at(U')')) fail("has an unclosed group");
    ++i_;
    return inner;
  }

  // A class item for \p{...} / \P{...} at i_ (after the backslash and the letter).
  Regex::ClassItem property(bool negated) {
    if (!at(U'{')) fail("has \\p without {name}");
    const std::size_t start = ++i_;
    while (i_ < p_.size() && !at(U'}')) ++i_;
    if (i_ >= p_.size()) fail("has an unclosed \\p{");
    std::string name = encode_utf8(p_.substr(start, i_ - start));
    ++i_;
    if (!name.empty() && name[0] == '^') {
      negated = !negated;
      name.erase(0, 1);
    }
    std::uint32_t mask = 0;
    unicode::Category k;
    if (name.size() == 1 || name == "L&" || name == "LC") {
      const char group = name[0];
      for (int j = 0; j <= static_cast<int>(unicode::Category::Cn); ++j) {
        const auto cat = static_cast<unicode::Category>(j);
        const char* cname = unicode::category_name(cat);
        if (name.size() == 1 ? cname[0] == group : (cname[0] == 'L' && (cname[1] == 'u' || cname[1] == 'l' || cname[1] == 't')))
          mask |= bit(cat);
      }
    } else if (unicode::category_of_name(name, k)) {
      mask = bit(k);
    }
    if (mask == 0) refuse("the Unicode property \\p{" + excerpt(name, 40) + "} (only general categories are)");
    return {Regex::ClassItem::Categories, negated, 0, 0, mask};
  }

  static char32_t hex_value(char32_t h) {
    if (h >= U'0' && h <= U'9') return h - U'0';
    if (h >= U'a' && h <= U'f') return h - U'a' + 10;
    if (h >= U'A' && h <= U'F') return h - U'A' + 10;
    return 0xFFFFFFFF;
  }

  char32_t hex(std::size_t digits) {
    char32_t v = 0;
    for (std::size_t k = 0; k < digits; ++k) {
      const char32_t d = i_ < p_.size() ? hex_value(p_[i_]) : 0xFFFFFFFF;
      if (d == 0xFFFFFFFF) fail("has a malformed hexadecimal escape");
      v = v * 16 + d;
      ++i_;
    }
    return v;
  }

  // The escape at i_ (a backslash) as class items appended to `items`; returns the code point
  // when it is one character (for ranges in a class), else 0xFFFFFFFF.
  char32_t escape(std::vector<Regex::ClassItem>& items, bool in_class) {
    ++i_;
    if (i_ >= p_.size()) fail("ends with a backslash");
    const char32_t e = p_[i_++];
    const auto single = [&](char32_t c) {
      items.push_back({Regex::ClassItem::Range, false, c, c, 0});
      return c;
    };
    switch (e) {
      case U'p': items.push_back(property(false)); return 0xFFFFFFFF;
      case U'P': items.push_back(property(true)); return 0xFFFFFFFF;
      case U's': case U'S': items.push_back({Regex::ClassItem::WhiteSpace, e == U'S', 0, 0, 0}); return 0xFFFFFFFF;
      case U'd': case U'D': items.push_back({Regex::ClassItem::Categories, e == U'D', 0, 0, bit(unicode::Category::Nd)}); return 0xFFFFFFFF;
      case U'w': case U'W': items.push_back({Regex::ClassItem::Word, e == U'W', 0, 0, 0}); return 0xFFFFFFFF;
      case U'n': return single(U'\n');
      case U'r': return single(U'\r');
      case U't': return single(U'\t');
      case U'f': return single(U'\f');
      case U'v': return single(U'\v');
      case U'e': return single(0x1B);
      case U'a': return single(0x07);
      case U'0': return single(0);
      case U'u': return single(hex(4));
      case U'x': {
        if (!at(U'{')) return single(hex(2));
        ++i_;
        const std::size_t start = i_;
        while (i_ < p_.size() && !at(U'}')) ++i_;
        if (i_ >= p_.size() || i_ == start || i_ - start > 6) fail("has a malformed \\x{...} escape");
        i_ = start;
        char32_t value = 0;
        while (!at(U'}')) value = value * 16 + hex(1);
        ++i_;
        if (value > 0x10FFFF) fail("has a code point past U+10FFFF");
        return single(value);
      }
      case U'b': if (in_class) return single(0x08); refuse("a word boundary \\b");
      case U'B': refuse("a word boundary \\B");
      case U'A': case U'z': case U'Z': case U'G': refuse(std::string("an anchor \\") + static_cast<char>(e));
      case U'h': case U'H': case U'k': case U'g': case U'K': case U'R': case U'X': case U'N': case U'O':
        refuse(std::string("the escape \\") + static_cast<char>(e));
      default: break;
    }
    if ((e >= U'0' && e <= U'9')) refuse("a back-reference");
    if ((e >= U'a' && e <= U'z') || (e >= U'A' && e <= U'Z')) refuse(std::string("the escape \\") + static_cast<char>(e));
    return single(e);  // escaped punctuation stands for itself
  }

  Regex::CharClass bracket(bool icase) {
    Regex::CharClass cls;
    cls.icase = icase;
    ++i_;  // [
    if (at(U'^')) {
      cls.negated = true;
      ++i_;
    }
    bool first = true;
    while (true) {
      if (i_ >= p_.size()) fail("has an unclosed character class");
      const char32_t c = p_[i_];
      if (c == U']' && !first) {
        ++i_;
        break;
      }
      first = false;
      if (c == U'[') refuse(starts(U"[:") ? "a POSIX bracket class" : "a nested character class");
      if (c == U'&' && i_ + 1 < p_.size() && p_[i_ + 1] == U'&') refuse("a class intersection &&");
      char32_t lo;
      if (c == U'\\') {
        lo = escape(cls.items, true);
        if (lo == 0xFFFFFFFF) continue;
      } else {
        ++i_;
        lo = c;
        cls.items.push_back({Regex::ClassItem::Range, false, c, c, 0});
      }
      // A range lo-hi (a '-' before ']' is itself).
      if (at(U'-') && i_ + 1 < p_.size() && p_[i_ + 1] != U']') {
        ++i_;
        char32_t hi;
        if (at(U'\\')) {
          std::vector<Regex::ClassItem> tmp;
          hi = escape(tmp, true);
          if (hi == 0xFFFFFFFF) fail("has a range whose end is a set");
        } else {
          if (at(U'[')) refuse("a nested character class");
          hi = p_[i_++];
        }
        if (hi < lo) fail("has a range out of order");
        cls.items.back().hi = hi;
      }
    }
    return cls;
  }

  void emit(const Node& n) {
    auto& prog = re_.program_;
    if (prog.size() > kMaxProgram) fail("is too large once its repetitions are written out");
    using I = Regex::Instruction;
    switch (n.kind) {
      case Node::Class: prog.push_back({I::Class, false, n.cls, 0}); return;
      case Node::Concat:
        for (const Node& k : n.kids) emit(k);
        return;
      case Node::Alt: {
        std::vector<std::size_t> jumps;
        for (std::size_t k = 0; k < n.kids.size(); ++k) {
          std::size_t split = 0;
          if (k + 1 < n.kids.size()) {
            split = prog.size();
            prog.push_back({I::Split, false, static_cast<int>(split + 1), 0});
          }
          emit(n.kids[k]);
          if (k + 1 < n.kids.size()) {
            jumps.push_back(prog.size());
            prog.push_back({I::Jump});
            prog[split].y = static_cast<int>(prog.size());
          }
        }
        for (std::size_t j : jumps) prog[j].x = static_cast<int>(prog.size());
        return;
      }
      case Node::Repeat: {
        for (int k = 0; k < n.min; ++k) emit(n.kids[0]);
        // Optional copies: each split either goes on into one more or leaves to the end.
        const auto split_to = [&](int body, int out) {
          return n.greedy ? I{I::Split, false, body, out} : I{I::Split, false, out, body};
        };
        if (n.max == kUnbounded) {
          const std::size_t loop = prog.size();
          prog.push_back({I::Split});
          emit(n.kids[0]);
          prog.push_back({I::Jump, false, static_cast<int>(loop), 0});
          prog[loop] = split_to(static_cast<int>(loop + 1), static_cast<int>(prog.size()));
          return;
        }
        std::vector<std::size_t> splits;
        for (int k = n.min; k < n.max; ++k) {
          splits.push_back(prog.size());
          prog.push_back({I::Split});
          emit(n.kids[0]);
        }
        for (std::size_t s : splits) prog[s] = split_to(static_cast<int>(s + 1), static_cast<int>(prog.size()));
        return;
      }
      case Node::Look: {
        const std::size_t look = prog.size();
        prog.push_back({I::Look, n.negated, static_cast<int>(look + 1), 0});
        emit(n.kids[0]);
        prog.push_back({I::Match});
        prog[look].y = static_cast<int>(prog.size());
        return;
      }
    }
  }

  Regex& re_;
  const std::string& where_;
  std::u32string p_;
  std::size_t i_ = 0;
};

Regex::Regex(const std::string& pattern, const std::string& where) : pattern_(pattern) {
  if (pattern.size() > 10000) throw ModelFileError(where + ": a regex of more than 10000 bytes");
  RegexCompiler(*this, where).compile();
}

std::size_t Regex::run(int pc, const std::u32string& text, std::size_t pos, std::size_t& steps,
                       std::size_t budget) const {
  std::vector<std::pair<int, std::size_t>> backtrack{{pc, pos}};
  while (!backtrack.empty()) {
    auto [p, at] = backtrack.back();
    backtrack.pop_back();
    for (bool alive = true; alive;) {
      if (++steps > budget)
        throw InputError("the regex " + quote(pattern_) + " took more than " + std::to_string(budget) +
                         " steps on a text of " + std::to_string(text.size()) +
                         " characters (it backtracks too much to run safely)");
      const Instruction& in = program_[static_cast<std::size_t>(p)];
      switch (in.op) {
        case Instruction::Class:
          alive = at < text.size() && classes_[static_cast<std::size_t>(in.x)].matches(text[at]);
          ++at, ++p;
          break;
        case Instruction::Split:
          backtrack.push_back({in.y, at});
          p = in.x;
          break;
        case Instruction::Jump: p = in.x; break;
        case Instruction::Look:
          alive = (run(in.x, text, at, steps, budget) != kNoMatch) != in.negated;
          p = in.y;
          break;
        case Instruction::Match: return at;
      }
    }
  }
  return kNoMatch;
}

std::vector<Regex::Match> Regex::find_all(const std::u32string& text) const {
  std::vector<Match> out;
  std::size_t steps = 0;
  const std::size_t budget = kStepFloor + kStepsPerChar * text.size();
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = run(0, text, start, steps, budget);
    if (end == kNoMatch) {
      ++start;
      continue;
    }
    out.push_back({start, end});
    start = end > start ? end : start + 1;
  }
  return out;
}

}  // namespace attnscope::tokenizer_json
