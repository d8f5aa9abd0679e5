#include "analysis/encoder_study.h"

#include "analysis/attention_maps.h"
#include "text/utf8.h"
#include "text/wordpiece_tokenizer.h"

namespace attnscope {
namespace {

// A piece made only of punctuation ("##" continuations counted by what follows the "##").
bool all_punctuation(const std::string& piece) {
  const std::string text = piece.size() > 2 && piece.compare(0, 2, "##") == 0 ? piece.substr(2) : piece;
  const std::u32string cps = decode_utf8(text);
  if (cps.empty()) return false;
  for (char32_t c : cps)
    if (!bert_is_punctuation(c)) return false;
  return true;
}

// The shares of one head's [T, T] map (row-major `a`), mean over query rows.
AttentionShares shares_of(const float* a, int T, const std::vector<bool>& cls, const std::vector<bool>& sep,
                          const std::vector<bool>& punct) {
  AttentionShares s;
  for (int i = 0; i < T; ++i) {
    const float* row = a + static_cast<std::size_t>(i) * T;
    for (int j = 0; j < T; ++j) {
      if (cls[j]) s.cls += row[j];
      if (sep[j]) s.sep += row[j];
      if (punct[j]) s.punct += row[j];
    }
    if (i > 0) s.prev += row[i - 1];
    if (i + 1 < T) s.next += row[i + 1];
  }
  for (double* x : {&s.cls, &s.sep, &s.punct, &s.prev, &s.next}) *x /= T;
  return s;
}

void add(AttentionShares& sum, const AttentionShares& s, double weight) {
  sum.cls += weight * s.cls;
  sum.sep += weight * s.sep;
  sum.punct += weight * s.punct;
  sum.prev += weight * s.prev;
  sum.next += weight * s.next;
}

const Tensor& self_attention(const Encoding& e) {
  if (e.self_site < 0 || e.trace.attention.size() <= static_cast<std::size_t>(e.self_site) ||
      e.trace.attention[e.self_site].shape.size() != 4)
    throw InputError("the study needs the encoding's attention (capture attention)");
  return e.trace.attention[e.self_site];
}

// The top-1 piece of one row of logits; of equal logits the lower id.
int top1(const RowVector& logits) {
  int best = 0;
  for (Eigen::Index v = 1; v < logits.size(); ++v)
    if (logits[v] > logits[best]) best = static_cast<int>(v);
  return best;
}

}  // namespace

Encoding encode_for_study(const Model& model, const std::string& text, const Interventions& interventions) {
  return encode_text(model, text, Capture{true, true, false}, interventions);
}

std::vector<std::vector<std::string>> head_patterns(const Encoding& e) {
  const Tensor& a = self_attention(e);
  const int L = a.shape[0], H = a.shape[1], T = a.shape[2];
  std::vector<std::vector<std::string>> out(static_cast<std::size_t>(L));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      const float* map = a.data.data() + (static_cast<std::size_t>(l) * H + h) * T * T;
      out[static_cast<std::size_t>(l)].push_back(attention_pattern(Eigen::Map<const Matrix>(map, T, T)));
    }
  return out;
}

ShareStudy attention_shares(const Model& model, const Encoding& e) {
  const Tensor& a = self_attention(e);
  const int L = a.shape[0], H = a.shape[1], T = a.shape[2];
  const EncoderInput& in = e.input;
  std::vector<bool> cls(T), sep(T), punct(T);
  for (int j = 0; j < T; ++j) {
    cls[j] = in.ids[j] == model.config.special.bos;
    sep[j] = in.ids[j] == model.config.special.eos;
    punct[j] = all_punctuation(in.pieces[j]);
  }
  ShareStudy out;
  out.raw.assign(L, {});
  out.norm.assign(L, {});
  out.raw_heads.assign(L, std::vector<AttentionShares>(H));
  out.norm_heads.assign(L, std::vector<AttentionShares>(H));
  std::vector<float> weighted(static_cast<std::size_t>(T) * T);
  for (int l = 0; l < L; ++l) {
    const auto it = e.trace.vectors.find("layers." + std::to_string(l) + ".transformed_values");
    if (it == e.trace.vectors.end() || it->second.rows() != static_cast<Eigen::Index>(H) * T)
      throw InputError("the norm-weighted shares need layer " + std::to_string(l) + "'s transformed value vectors (capture vectors)");
    const Matrix& f = it->second;  // [H * T, d]: row h*T + j is f_h(x_j)
    for (int h = 0; h < H; ++h) {
      const float* map = a.data.data() + (static_cast<std::size_t>(l) * H + h) * T * T;
      for (int i = 0; i < T; ++i) {
        double total = 0;
        for (int j = 0; j < T; ++j) {
          const float w = map[i * T + j] * f.row(static_cast<Eigen::Index>(h) * T + j).norm();
          weighted[static_cast<std::size_t>(i) * T + j] = w;
          total += w;
        }
        for (int j = 0; j < T; ++j)
          weighted[static_cast<std::size_t>(i) * T + j] = total > 0 ? static_cast<float>(weighted[static_cast<std::size_t>(i) * T + j] / total) : 0.0f;
      }
      out.raw_heads[l][h] = shares_of(map, T, cls, sep, punct);
      out.norm_heads[l][h] = shares_of(weighted.data(), T, cls, sep, punct);
      add(out.raw[l], out.raw_heads[l][h], 1.0 / H);
      add(out.norm[l], out.norm_heads[l][h], 1.0 / H);
    }
  }
  return out;
}

HeadAblation head_ablation(const Model& model, const std::vector<std::string>& sentences,
                           const std::function<void(int, int)>& progress) {
  if (sentences.empty()) throw InputError("the head ablation needs at least one sentence");
  const EncoderOnly& family = encoder_only(model);
  const SpecialTokens& s = model.config.special;
  const int mask = family.mask_id();
  const SiteTable& sites = model.sites();
  const int self = family.self_attention_site();
  const int L = sites[self].layers, H = sites[self].heads;

  // Every masked copy of every sentence, made once: (ids with [MASK] at `position`, original id).
  struct Masked {
    std::vector<int> ids;
    int position, original;
  };
  std::vector<Masked> masked;
  for (std::size_t n = 0; n < sentences.size(); ++n) {
    EncoderInput in;
    try {
      in = family.tokenize(model, sentences[n]);
    } catch (const InputError& e) {
      throw InputError("sentence " + std::to_string(n + 1) + ": " + e.what());
    }
    for (std::size_t i = 0; i < in.ids.size(); ++i) {
      const int id = in.ids[i];
      if (id == s.pad || id == s.unk || id == s.bos || id == s.eos || id == mask) continue;
      Masked m{in.ids, static_cast<int>(i), id};
      m.ids[i] = mask;
      masked.push_back(std::move(m));
    }
  }
  if (masked.empty()) throw InputError("the sentences have no piece to mask (only special tokens)");

  auto correct = [&](const Interventions& iv) {
    int n = 0;
    for (const Masked& m : masked) {
      const Matrix hidden = model.family->encode(m.ids, Capture{}, nullptr, iv);
      n += top1(family.mlm_logits(hidden.row(m.position))) == m.original;
    }
    return n;
  };

  HeadAblation out;
  out.positions = static_cast<int>(masked.size());
  out.base_correct = correct({});
  out.base_accuracy = static_cast<double>(out.base_correct) / out.positions;
  out.correct.assign(L, std::vector<int>(H));
  out.delta.assign(L, std::vector<double>(H));
  if (progress) progress(0, L * H);
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      Interventions iv;
      iv.masked_heads.push_back({sites[self].name, l, h});
      out.correct[l][h] = correct(iv);
      out.delta[l][h] = static_cast<double>(out.correct[l][h]) / out.positions - out.base_accuracy;
      if (progress) progress(l * H + h + 1, L * H);
    }
  return out;
}

}  // namespace attnscope
