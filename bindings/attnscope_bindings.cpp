// Embind glue only: converts the engine's C++ results to plain JavaScript values and turns C++
// exceptions into {error: message} results, which web/attnscope.js rethrows as JS Errors. No
// math lives here. Every typed array handed to JS is a copy, never a view into the WASM heap,
// so no later call can change or invalidate it.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <malloc.h>

#include <memory>
#include <new>
#include <string>

#include "analysis/attention_maps.h"
#include "analysis/attribution_session.h"
#include "analysis/bert_study.h"
#include "analysis/bleu_by_length.h"
#include "analysis/encoding_analysis.h"
#include "analysis/head_importance.h"
#include "analysis/induction.h"
#include "analysis/logit_lens.h"
#include "analysis/session_analysis.h"
#include "analysis/vectors.h"
#include "decoding/options_json.h"
#include "decoding/session.h"
#include "families/bert/tasks.h"
#include "train/options_json.h"
#include "train/repeated_sequences.h"
#include "train/successor_walks.h"
#include "train/trainer.h"

namespace {

using emscripten::val;
using namespace attnscope;

template <class F>
val guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    // Not "std::bad_alloc": what the user can do about it. A load's allocations are bounded
    // by the file's size (model/weight_reader.h), so this is a model or a corpus too big for
    // the tab's memory.
    val result = val::object();
    result.set("error", std::string("the attnscope engine ran out of memory (the WebAssembly heap cannot grow further)"));
    return result;
  } catch (const std::exception& e) {
    val result = val::object();
    result.set("error", std::string(e.what()));
    return result;
  } catch (...) {
    val result = val::object();
    result.set("error", std::string("unknown error in the attnscope engine"));
    return result;
  }
}

template <class T>
val to_array(const std::vector<T>& items) {
  val out = val::array();
  for (std::size_t i = 0; i < items.size(); ++i) out.set(i, items[i]);
  return out;
}

// A JS Uint8Array's bytes in the engine's memory, copied by one TypedArray.set (a memcpy): Embind's
// std::string conversion copies a typed array byte by byte in JavaScript (~100 ms of a 12 MB
// model's load in Node).
std::vector<std::uint8_t> bytes_of(const val& array) {
  std::vector<std::uint8_t> out(array["length"].as<std::size_t>());
  val(emscripten::typed_memory_view(out.size(), out.data())).call<void>("set", array);
  return out;
}

val float32_copy(const float* data, std::size_t n) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(n, data));
}

val matrix(const Matrix& m) {
  val out = val::object();
  out.set("shape", to_array(std::vector<int>{static_cast<int>(m.rows()), static_cast<int>(m.cols())}));
  out.set("data", float32_copy(m.data(), m.size()));
  return out;
}

val tensor(const Tensor& t) {
  val out = val::object();
  out.set("shape", to_array(t.shape));
  out.set("data", float32_copy(t.data.data(), t.data.size()));
  return out;
}

val tokens_of(const Vocabulary& vocab, const std::vector<int>& ids) {
  val out = val::array();
  for (std::size_t i = 0; i < ids.size(); ++i) out.set(i, vocab.token(ids[i]));
  return out;
}

// An encoder-only model's encoding of one text: what the views draw.
val encoding(const Model& m, const bert::Encoding& e, bool vectors) {
  val out = val::object();
  out.set("tokens", to_array(e.input.pieces));
  out.set("ids", to_array(e.input.ids));
  out.set("segments", to_array(e.input.segments));
  out.set("unknown", to_array(e.input.unknown));
  val attention = val::object();
  for (std::size_t i = 0; i < m.sites().size(); ++i)
    attention.set(m.sites()[i].name, tensor(site_attention(e.trace.attention, static_cast<int>(i))));
  out.set("attention", attention);
  out.set("hidden", matrix(e.hidden));
  if (vectors) {
    val named = val::object();
    for (const auto& [name, value] : e.trace.vectors) named.set(name, matrix(value));
    out.set("vectors", named);
  }
  return out;
}

// One explained prediction (analysis/attribution_session.h): {step, token, tokenId, sourceTokens,
// sourceScores, targetTokens, targetScores, f, sum, fBaseline?, completenessError?,
// completenessShare?, suggestedSteps?, agreement?}.
val agreement(const AttentionAgreement& a) {
  val out = val::object();
  out.set("site", a.site);
  out.set("layers", a.layers);
  out.set("heads", a.heads);
  out.set("tau", val::global("Float64Array").new_(emscripten::typed_memory_view(a.tau.size(), a.tau.data())));
  return out;
}

val token_attribution(const TokenAttribution& a, const Vocabulary& source, const Vocabulary& target) {
  val out = val::object();
  out.set("step", a.step);
  out.set("token", target.token(a.token));
  out.set("tokenId", a.token);
  if (a.contrast >= 0) out.set("contrast", target.token(a.contrast));
  out.set("sourceTokens", tokens_of(source, a.tokens.source));
  out.set("sourceScores", float32_copy(a.scores.source.data(), a.scores.source.size()));
  out.set("targetTokens", tokens_of(target, a.tokens.target));
  out.set("targetScores", float32_copy(a.scores.target.data(), a.scores.target.size()));
  out.set("f", a.scores.f);
  out.set("sum", a.scores.sum);
  if (a.method == AttributionMethod::IntegratedGradients) {
    out.set("fBaseline", a.scores.f_baseline);
    out.set("completenessError", a.scores.completeness_error);
    out.set("completenessShare", a.scores.completeness_share);
    out.set("suggestedSteps", a.scores.suggested_steps);
  }
  if (!a.agreement.tau.empty()) out.set("agreement", agreement(a.agreement));
  return out;
}

// The work of an attribution request (analysis/attribution_cost.h): {work, passes, maxSteps}.
val cost_val(const AttributionCost& c) {
  val out = val::object();
  out.set("work", c.work);
  out.set("passes", static_cast<double>(c.passes));
  out.set("maxSteps", c.max_steps);
  return out;
}

// The five shares of one attention distribution (analysis/bert_study.h).
val shares(const AttentionShares& s) {
  val out = val::object();
  out.set("cls", s.cls);
  out.set("sep", s.sep);
  out.set("punct", s.punct);
  out.set("prev", s.prev);
  out.set("next", s.next);
  return out;
}

val shares_per_layer(const std::vector<AttentionShares>& layers) {
  val out = val::array();
  for (std::size_t l = 0; l < layers.size(); ++l) out.set(l, shares(layers[l]));
  return out;
}

template <class T>
val nested(const std::vector<std::vector<T>>& rows) {
  val out = val::array();
  for (std::size_t i = 0; i < rows.size(); ++i) out.set(i, to_array(rows[i]));
  return out;
}

// The length-bin edges a JS caller gave (null or undefined: the engine's default bins).
std::vector<int> length_edges(const val& edges) {
  return edges.isNull() || edges.isUndefined() ? default_length_edges() : emscripten::vecFromJSArray<int>(edges);
}

void set_bleu(val& out, const Bleu& b) {
  out.set("bleu", b.score);
  out.set("precisions", to_array(std::vector<double>(b.precisions.begin(), b.precisions.end())));
  out.set("brevityPenalty", b.brevity_penalty);
  out.set("hypLen", static_cast<double>(b.hyp_len));
  out.set("refLen", static_cast<double>(b.ref_len));
}

// The shape of `attnscope-cli bleu-by-length --json` (src/cli/bleu_by_length_command.cpp).
val bleu_by_length_val(const BleuByLength& r) {
  val bins = val::array();
  for (std::size_t i = 0; i < r.bins.size(); ++i) {
    const LengthBin& b = r.bins[i];
    val bin = val::object();
    bin.set("minWords", b.min_words);
    bin.set("maxWords", b.max_words > 0 ? val(b.max_words) : val::null());
    bin.set("sentences", b.sentences);
    if (b.sentences > 0) set_bleu(bin, b.bleu);
    else bin.set("bleu", val::null());
    bins.set(i, bin);
  }
  val total = val::object();
  total.set("sentences", r.sentences);
  set_bleu(total, r.total);
  val out = val::object();
  out.set("edges", to_array(r.edges));
  out.set("bins", bins);
  out.set("total", total);
  return out;
}

// BLEU by source length of given translations (no model).
val bleu_by_length_of(const val& sources, const val& translations, const val& references, const val& edges) {
  return guarded([&] {
    return bleu_by_length_val(bleu_by_length(emscripten::vecFromJSArray<std::string>(sources),
                                             emscripten::vecFromJSArray<std::string>(translations),
                                             emscripten::vecFromJSArray<std::string>(references), length_edges(edges)));
  });
}

class ModelHandle {
 public:
  val load(const val& array, bool int8) {  // array: a Uint8Array
    return guarded([&] {
      Model::LoadOptions options;
      options.int8 = int8;
      std::vector<std::uint8_t> bytes = bytes_of(array);
      model_ = Model::load_bytes(bytes.data(), bytes.size(), options);
      // Kept (moved, never copied again) for attribution's gradient pass, built on its first use.
      bytes_ = std::move(bytes);
      pass_.reset();
      return val::undefined();
    });
  }

  val info() const {
    return guarded([&] {
      const Model& m = model();
      val out = val::object();
      out.set("config", m.config.to_json());
      out.set("tokenizer", m.tokenizer->to_json());
      out.set("tgtTokenizer", m.tgt_tokenizer->to_json());
      // The checkpoint's decoding defaults, as an object; absent when the file has none.
      if (!m.generation.empty()) out.set("generation", val::global("JSON").call<val>("parse", m.generation.to_json()));
      for (const char* key : {"name", "description", "license", "source"})  // free text, '' when absent
        out.set(key, m.metadata.count(key) ? m.metadata.at(key) : std::string());
      out.set("srcVocabSize", m.src_vocab.size());
      out.set("tgtVocabSize", m.tgt_vocab.size());
      out.set("int8", m.int8);
      out.set("architecture", m.config.architecture);
      out.set("hasDecoder", m.family->decoder() != nullptr);  // false: encoder-only (nothing to translate)
      // The decoder layers the logit lens reads out; 0: no lens (encoder-only, or no residual stream).
      out.set("logitLensLayers", m.family->decoder() ? m.family->decoder()->lens_layers() : 0);
      // What the text a session starts from is: a source the encoder reads, a prompt the decoder
      // continues (its tokens open the decoder's own context: no encoder, no cross-attention), or
      // a text an encoder-only model encodes.
      const ModelFamily::Input input = m.family->input();
      out.set("hasEncoder", input != ModelFamily::Input::Prompt);
      out.set("input", std::string(input == ModelFamily::Input::Prompt ? "prompt"
                                   : input == ModelFamily::Input::Source ? "source" : "text"));
      val sites = val::array();
      for (std::size_t i = 0; i < m.sites().size(); ++i) {
        const AttentionSiteInfo& site = m.sites()[i];
        val x = val::object();
        x.set("name", site.name);
        x.set("label", site.label);
        x.set("queries", std::string(to_string(site.queries)));
        x.set("keys", std::string(to_string(site.keys)));
        x.set("layers", site.layers);
        x.set("heads", site.heads);
        x.set("perStep", site.per_step);
        x.set("skip", site.skip);
        x.set("customWeights", site.takes_custom_weights());
        x.set("copiedBySourceEncoding", site.copied_by_source_encoding);
        // Whether the site has per-head q/k/v projections (value-weighted attention, Q·Kᵀ rows apply).
        x.set("queryKeyValues", m.family->attention_layer(static_cast<int>(i), 0) != nullptr);
        sites.set(i, x);
      }
      out.set("sites", sites);
      // The model-wide interventions its family refuses, by option name (model/interventions.h).
      val refused = val::array();
      const auto& refusals = m.family->intervention_support().refused;
      for (std::size_t i = 0; i < refusals.size(); ++i) refused.set(i, refusals[i].option);
      out.set("refusedInterventions", refused);
      return out;
    });
  }

  val vocab(bool target) const {
    return guarded([&] { return to_array((target ? model().tgt_vocab : model().src_vocab).tokens()); });
  }

  val tokenize(const std::string& text, bool target) const {
    return guarded([&] {
      const Model& m = model();
      const Encoded e = encode(target ? *m.tgt_tokenizer : *m.tokenizer, target ? m.tgt_vocab : m.src_vocab, text, m.config.special.unk);
      val out = val::object();
      out.set("pieces", to_array(e.pieces));
      out.set("ids", to_array(e.ids));
      out.set("unknown", to_array(e.unknown));
      return out;
    });
  }

  // Encoder-only models: `text` (a sentence, or a pair "A [SEP] B") encoded, with its attention
  // per site, its final hidden states and, if asked, the named vectors (q, k, v, the transformed
  // value vectors, every layer's output, ...).
  val encode_text(const std::string& text, bool vectors, const std::string& interventions) const {
    return guarded([&] {
      const Model& m = model();
      const bert::Encoding e = bert::encode_text(m, text, Capture{true, vectors, false}, interventions_from_json(interventions));
      return encoding(m, e, vectors);
    });
  }

  // Encoder-only models: the top_k pieces for every [MASK] of `text`, with the encoding.
  val fill_mask(const std::string& text, int top_k, const std::string& interventions) const {
    return guarded([&] {
      const Model& m = model();
      const bert::FillMask f = bert::fill_mask(m, text, top_k, Capture{true, false, false}, interventions_from_json(interventions));
      val out = encoding(m, f.encoding, false);
      val masks = val::array();
      for (std::size_t i = 0; i < f.masks.size(); ++i) {
        val top = val::array();
        for (std::size_t k = 0; k < f.masks[i].top.size(); ++k) {
          const bert::Candidate& c = f.masks[i].top[k];
          val x = val::object();
          x.set("id", c.id);
          x.set("token", c.piece);
          x.set("prob", c.probability);
          x.set("logit", c.logit);
          top.set(k, x);
        }
        val mask = val::object();
        mask.set("position", f.masks[i].position);
        mask.set("topK", top);
        masks.set(i, mask);
      }
      out.set("masks", masks);
      return out;
    });
  }

  // Encoder-only models: the head study of `text` (analysis/bert_study.h).
  val head_study(const std::string& text, const std::string& interventions) const {
    return guarded([&] {
      const Model& m = model();
      const bert::Encoding e = encode_for_study(m, text, interventions_from_json(interventions));
      const ShareStudy s = attention_shares(m, e);
      val heads_raw = val::array(), heads_norm = val::array();
      for (std::size_t l = 0; l < s.raw_heads.size(); ++l) {
        heads_raw.set(l, shares_per_layer(s.raw_heads[l]));
        heads_norm.set(l, shares_per_layer(s.norm_heads[l]));
      }
      val sh = val::object();
      sh.set("raw", shares_per_layer(s.raw));
      sh.set("norm", shares_per_layer(s.norm));
      sh.set("rawHeads", heads_raw);
      sh.set("normHeads", heads_norm);
      val out = val::object();
      out.set("tokens", to_array(e.input.pieces));
      out.set("patterns", nested(head_patterns(e)));
      out.set("shares", sh);
      out.set("attention", tensor(site_attention(e.trace.attention, bert::kSelf)));
      return out;
    });
  }

  // Encoder-only models: the analyses of `text`'s encoding (analysis/encoding_analysis.h): the
  // rollout and pattern classes of its self-attention over the input, and ‖α·f(x)‖ of every
  // once-per-source site with per-head projections.
  val text_analysis(const std::string& text, const std::string& interventions) const {
    return guarded([&] {
      const Model& m = model();
      const bert::Encoding e = bert::encode_text(m, text, Capture{true, true, false}, interventions_from_json(interventions));
      val out = val::object();
      out.set("tokens", to_array(e.input.pieces));
      out.set("site", m.sites()[source_self_attention_site(m.sites())].name);
      out.set("rollout", matrix(encoder_rollout(m, e.trace)));
      out.set("patterns", to_array(encoder_patterns(m, e.trace)));
      val attention = val::object(), weighted = val::object();
      for (std::size_t i = 0; i < m.sites().size(); ++i) {
        const AttentionSiteInfo& site = m.sites()[i];
        if (site.per_step) continue;
        attention.set(site.name, tensor(site_attention(e.trace.attention, static_cast<int>(i))));
        if (m.family->attention_layer(static_cast<int>(i), 0)) weighted.set(site.name, tensor(value_weighted_attention(m, e.trace, site.name)));
      }
      out.set("attention", attention);
      out.set("valueWeighted", weighted);
      return out;
    });
  }

  // Encoder-only models: one head's scores before the softmax for one position of `text`
  // (analysis/encoding_analysis.h attention_logits), and the attention row after it.
  val text_attention_logits(const std::string& text, const std::string& interventions, const std::string& site, int layer,
                            int head, int query) const {
    return guarded([&] {
      const Model& m = model();
      const bert::Encoding e = bert::encode_text(m, text, Capture{true, true, false}, interventions_from_json(interventions));
      const RowVector logits = attention_logits(m, e.trace, site, layer, head, query);
      const RowVector weights = attention_row(m, e.trace, site, layer, head, query);
      val out = val::object();
      out.set("logits", float32_copy(logits.data(), logits.size()));
      out.set("weights", float32_copy(weights.data(), weights.size()));
      return out;
    });
  }

  // Encoder-only models: masked-token accuracy on `sentences` with each head switched off.
  val head_ablation(const val& sentences, const val& progress) const {
    return guarded([&] {
      const HeadAblation a = attnscope::head_ablation(model(), emscripten::vecFromJSArray<std::string>(sentences), [&](int done, int total) {
        if (progress.typeOf().as<std::string>() == "function") progress(done, total);
      });
      val out = val::object();
      out.set("baseAccuracy", a.base_accuracy);
      out.set("positions", a.positions);
      out.set("baseCorrect", a.base_correct);
      out.set("sentences", static_cast<int>(sentences["length"].as<int>()));
      out.set("correct", nested(a.correct));
      out.set("delta", nested(a.delta));
      return out;
    });
  }

  // Teacher-forced log-probability of `target` (text) as the translation of `source` (text).
  val score(const std::string& source, const std::string& target, const std::string& interventions) const {
    return guarded([&] {
      const Model& m = model();
      const Encoded t = encode(*m.tgt_tokenizer, m.tgt_vocab, target, m.config.special.unk);
      const TargetScore s = score_target(m, prepare_source(m, source), t.ids, interventions_from_json(interventions));
      val out = val::object();
      out.set("logProb", s.log_prob);
      out.set("tokens", tokens_of(m.tgt_vocab, t.ids));
      out.set("tokenLogProbs", float32_copy(s.token_log_probs.data(), s.token_log_probs.size()));
      return out;
    });
  }

  // Head-importance sweep over parallel arrays of sentences, of the heads [first, first + count)
  // (count < 0: all from first); progress(done, total) is called after each head.
  val head_sweep(const val& sources, const val& references, bool bleu, int first, int count, const val& progress) const {
    return guarded([&] {
      const Model& m = model();
      const auto src = emscripten::vecFromJSArray<std::string>(sources);
      const auto ref = emscripten::vecFromJSArray<std::string>(references);
      if (src.size() != ref.size()) throw InputError("sources and references must have the same length");
      std::vector<DevPair> dev;
      for (std::size_t i = 0; i < src.size(); ++i)
        dev.push_back({prepare_source(m, src[i]), encode(*m.tgt_tokenizer, m.tgt_vocab, ref[i], m.config.special.unk).ids, ref[i]});
      HeadSweepOptions options;
      options.bleu = bleu;
      options.first_head = first;
      options.head_count = count;
      const HeadSweep sweep = head_importance_sweep(m, dev, options, [&](int done, int total) {
        if (progress.typeOf().as<std::string>() == "function") progress(done, total);
      });
      val heads = val::array();
      for (std::size_t i = 0; i < sweep.heads.size(); ++i) {
        const HeadImportance& h = sweep.heads[i];
        val x = val::object();
        x.set("site", h.site);
        x.set("layer", h.layer);
        x.set("head", h.head);
        x.set("deltaLogLikelihood", h.delta_log_likelihood);
        if (sweep.has_bleu) x.set("deltaBleu", h.delta_bleu);
        heads.set(i, x);
      }
      val out = val::object();
      out.set("baseLogLikelihood", sweep.base_log_likelihood);
      out.set("tokens", sweep.tokens);
      if (sweep.has_bleu) out.set("baseBleu", sweep.base_bleu);
      out.set("heads", heads);
      return out;
    });
  }

  // Translates every source with the decoding options (JSON) and scores the translations per bin
  // of source length; progress(done, total) after each sentence.
  val bleu_by_length(const val& sources, const val& references, const std::string& options, const val& edges,
                     const val& progress) const {
    return guarded([&] {
      model();  // "no model is loaded" before anything else
      std::vector<std::string> translations;
      const BleuByLength r = translate_bleu_by_length(
          model_, emscripten::vecFromJSArray<std::string>(sources), emscripten::vecFromJSArray<std::string>(references),
          decode_options_from_json(options, model_defaults()), length_edges(edges), &translations, [&](int done, int total) {
            if (progress.typeOf().as<std::string>() == "function") progress(done, total);
          });
      val out = bleu_by_length_val(r);
      out.set("translations", to_array(translations));
      return out;
    });
  }

  val embedding_pca(bool target) const {
    return guarded([&] { return matrix(pca_2d(model().family->token_embeddings(target ? Side::Target : Side::Source))); });
  }

  val positional_encoding() const {
    return guarded([&] { return matrix(model().family->positional_encoding()); });
  }

  // cos between the source embeddings of `src_ids` and the target embeddings of `tgt_ids`.
  val embedding_cosine(const val& src_ids, const val& tgt_ids) const {
    return guarded([&] {
      const Model& m = model();
      auto rows = [](const Matrix& table, const std::vector<int>& ids) {
        Matrix out(ids.size(), table.cols());
        for (std::size_t i = 0; i < ids.size(); ++i) {
          if (ids[i] < 0 || ids[i] >= table.rows())
            throw IndexError("token id " + std::to_string(ids[i]) + " is outside the vocabulary");
          out.row(i) = table.row(ids[i]);
        }
        return out;
      };
      return matrix(cosine_similarity(rows(m.family->token_embeddings(Side::Source), emscripten::vecFromJSArray<int>(src_ids)),
                                      rows(m.family->token_embeddings(Side::Target), emscripten::vecFromJSArray<int>(tgt_ids))));
    });
  }

  // Induction heads (analysis/induction.h) on `probes` (texts whose second half repeats the first),
  // the copying score over `symbols` (words of the vocabulary): {layers, heads, prefixMatching
  // [layer][head], previousToken [layer][head], copying [layer][head], lossFirstHalf, lossRepeatedHalf, tokens (the first
  // probe's context, <bos> first), attention {shape [layers, heads, T, T], data}}.
  val induction_scores(const val& probes, const val& symbols) const {
    return guarded([&] {
      const Model& m = model();
      auto ids_of = [&](const std::string& text, const std::string& what) {
        const Encoded e = encode(*m.tgt_tokenizer, m.tgt_vocab, text, m.config.special.unk);
        if (!e.unknown.empty()) throw InputError(what + ": '" + e.unknown[0] + "' is not in the model's vocabulary");
        return e.ids;
      };
      std::vector<std::vector<int>> probe_ids;
      const auto texts = emscripten::vecFromJSArray<std::string>(probes);
      for (std::size_t i = 0; i < texts.size(); ++i) probe_ids.push_back(ids_of(texts[i], "induction probe " + std::to_string(i + 1)));
      std::vector<int> tokens;
      for (const std::string& symbol : emscripten::vecFromJSArray<std::string>(symbols)) {
        const std::vector<int> ids = ids_of(symbol, "copying-score symbol");
        if (ids.size() != 1) throw InputError("copying-score symbol '" + symbol + "' is not one token");
        tokens.push_back(ids[0]);
      }
      const InductionScores r = attnscope::induction_scores(m, probe_ids, tokens);
      val out = val::object();
      out.set("layers", r.layers);
      out.set("heads", r.heads);
      out.set("prefixMatching", nested(r.prefix_matching));
      out.set("previousToken", nested(r.previous_token));
      out.set("copying", nested(r.copying));
      out.set("lossFirstHalf", r.loss_first_half);
      out.set("lossRepeatedHalf", r.loss_repeated_half);
      out.set("tokens", tokens_of(m.tgt_vocab, r.context));
      out.set("attention", tensor(r.attention));
      return out;
    });
  }

  // Encoder-only models: every [MASK] of `text` explained for its best piece (analysis/attribution_session.h).
  val mask_attribution(const std::string& text, const std::string& method, int steps, const std::string& baseline,
                       const std::string& contrast) const {
    return guarded([&] {
      const Model& m = model();
      const auto all = fill_mask_attribution(m, text, pass(), attribution_options(method, steps, baseline, contrast, m.src_vocab));
      val out = val::array();
      for (std::size_t i = 0; i < all.size(); ++i) out.set(i, token_attribution(all[i], m.src_vocab, m.src_vocab));
      return out;
    });
  }

  // The model's gradient pass (train/differentiable.h), built from the file's bytes on first use.
  train::Differentiable& pass() const {
    if (!pass_) {
      if (bytes_.empty()) throw InputError("attribution needs a model loaded from a file (this one was trained here)");
      pass_ = train::differentiable_from_bytes(bytes_.data(), bytes_.size());
    }
    return *pass_;
  }

  // A model the engine already loaded (the trainer's weights after an epoch).
  void adopt(std::shared_ptr<const Model> model) {
    model_ = std::move(model);
    bytes_.clear();
    pass_.reset();
  }

  const std::shared_ptr<const Model>& shared() const { return model_; }
  const Model& model() const {
    if (!model_) throw Error("no model is loaded");
    return *model_;
  }
  // What an option the caller leaves out means for this model: its checkpoint's generation defaults.
  DecodeOptions model_defaults() const { return with_generation_defaults(DecodeOptions{}, model().generation); }

 private:
  std::shared_ptr<const Model> model_;
  std::vector<std::uint8_t> bytes_;  // the model file, for pass()
  mutable std::unique_ptr<train::Differentiable> pass_;
};

class SessionHandle {
 public:
  val start(const ModelHandle& model, const std::string& text, const std::string& options) {
    return guarded([&] {
      const Model& m = model.model();  // throws if not loaded
      DecodeOptions decoding = decode_options_from_json(options, model.model_defaults());
      Source source = prepare_source(m, text);
      session_ = std::make_unique<DecodeSession>(model.shared(), std::move(source), decoding);
      return status();
    });
  }

  // What a step computed, and the session's state after it: the caller needs no second call.
  val step() { return guarded([&] { return stepped(session().step()); }); }
  val force(int token, int hypothesis) { return guarded([&] { return stepped(session().force(token, hypothesis)); }); }
  val run() {
    return guarded([&] {
      session().run();
      return status();
    });
  }
  val back() {
    return guarded([&] {
      session().back();
      return status();
    });
  }

  val state() const {
    return guarded([&] { return status(); });
  }

  // {done, hitMaxLength, steps, maxLength, live, finished, nbest}
  val status() const {
    {
      const DecodeSession& s = session();
      const Vocabulary& vocab = s.model().tgt_vocab;
      val live = val::array();
      int i = 0;
      for (const Hypothesis& h : s.live()) live.set(i++, hypothesis(vocab, h.tokens, h.score, h.score, false, h.node));
      val out = val::object();
      out.set("done", s.done());
      out.set("hitMaxLength", s.hit_max_length());
      out.set("steps", s.steps_taken());
      out.set("maxLength", s.max_length());
      out.set("live", live);
      out.set("finished", finished(s.finished()));
      out.set("nbest", finished(s.nbest()));
      return out;
    }
  }

  val source() const {
    return guarded([&] {
      const Source& src = session().source();
      val out = val::object();
      out.set("pieces", to_array(src.pieces));
      out.set("ids", to_array(src.ids));
      out.set("unknown", to_array(src.unknown));
      return out;
    });
  }

  val history(int index) const {
    return guarded([&] { return record(session().record(index)); });
  }

  // One site's attention (a name from info().sites): a per-step site's tensor at step `index`
  // for the hypothesis extended as `expansion`; a once-per-source site's (index ignored).
  val attention(const std::string& site, int index, int expansion) const {
    return guarded([&] {
      const DecodeSession& s = session();
      return tensor(session_attention(s, find_site(s.model().sites(), site), index, expansion));
    });
  }

  val logits(int index, int expansion, bool log_probs) const {
    return guarded([&] {
      const Expansion& e = session().expansion(index, expansion);
      const std::vector<float>& v = log_probs ? e.log_probs : e.logits;
      if (v.empty()) throw Error("logits were not captured: create the session with capture.logits = true");
      return float32_copy(v.data(), v.size());
    });
  }

  val tree() const {
    return guarded([&] {
      const DecodeSession& s = session();
      val nodes = val::array();
      const auto& tree = s.tree();
      for (std::size_t i = 0; i < tree.size(); ++i) {
        const BeamNode& n = tree[i];
        val node = val::object();
        node.set("id", static_cast<int>(i));
        node.set("parent", n.parent);
        node.set("step", n.step);
        node.set("tokenId", n.token);
        node.set("token", s.model().tgt_vocab.token(n.token));
        node.set("logProb", n.log_prob);
        node.set("score", n.score);
        node.set("status", std::string(to_string(n.status)));
        nodes.set(i, node);
      }
      return nodes;
    });
  }

  val rollout() const {
    return guarded([&] { return matrix(encoder_rollout(session())); });
  }

  val attention_logits(const std::string& kind, int layer, int head, int query, int index, int expansion) const {
    return guarded([&] {
      const RowVector row = attnscope::attention_logits(session(), kind, layer, head, query, index, expansion);
      return float32_copy(row.data(), row.size());
    });
  }

  val value_weighted(const std::string& kind, int index, int expansion) const {
    return guarded([&] { return tensor(value_weighted_attention(session(), kind, index, expansion)); });
  }

  val encoder_patterns() const {
    return guarded([&] { return to_array(attnscope::encoder_patterns(session())); });
  }

  // {layers, steps: [{id, token, layers: [{top: [{id, piece, p}], chosen: {p, rank}}]}]} along
  // `ids` (the tokens of a path, one per step), or the leading hypothesis when `ids` is null.
  val logit_lens(int top_k, const val& ids) const {
    return guarded([&] {
      const LogitLens lens = ids.isNull() || ids.isUndefined()
                                 ? attnscope::logit_lens(session(), top_k)
                                 : attnscope::logit_lens(session(), top_k, emscripten::vecFromJSArray<int>(ids));
      val steps = val::array();
      for (std::size_t s = 0; s < lens.steps.size(); ++s) {
        val layers = val::array();
        for (std::size_t l = 0; l < lens.steps[s].layers.size(); ++l) {
          const LensLayer& layer = lens.steps[s].layers[l];
          val top = val::array();
          for (std::size_t k = 0; k < layer.top.size(); ++k) {
            val t = val::object();
            t.set("id", layer.top[k].id);
            t.set("piece", layer.top[k].piece);
            t.set("p", layer.top[k].prob);
            top.set(k, t);
          }
          val chosen = val::object();
          chosen.set("p", layer.chosen_prob);
          chosen.set("rank", layer.chosen_rank);
          val x = val::object();
          x.set("top", top);
          x.set("chosen", chosen);
          layers.set(l, x);
        }
        val step = val::object();
        step.set("id", lens.steps[s].token);
        step.set("token", lens.steps[s].piece);
        step.set("layers", layers);
        steps.set(s, step);
      }
      val out = val::object();
      out.set("layers", lens.layers);
      out.set("steps", steps);
      return out;
    });
  }

  // A decoder-only session's prompt, as its first step read it: the causal self-attention over
  // <bos> and the prompt, [layers, heads, 1 + P, 1 + P], through the analyses an encoder's
  // self-attention gets (analysis/attention_maps.h): the rollout, and each head's pattern class.
  val prompt_rollout() const {
    return guarded([&] { return matrix(attention_rollout(prompt_attention())); });
  }

  val prompt_patterns() const {
    return guarded([&] {
      const Tensor& a = prompt_attention();
      const int heads = a.shape[1], T = a.shape[2];
      std::vector<std::string> out;
      for (int i = 0; i < a.shape[0] * heads; ++i)
        out.push_back(attention_pattern(Eigen::Map<const Matrix>(a.data.data() + static_cast<std::size_t>(i) * T * T, T, T)));
      return to_array(out);
    });
  }

  // What drove the prediction of `step` for hypothesis `hypothesis` (`token` −1: the chosen one).
  val attribution(const ModelHandle& model, int step, int hypothesis, int token, const std::string& method, int steps,
                  const std::string& baseline, const std::string& contrast) const {
    return guarded([&] {
      const DecodeSession& s = session();
      const AttributionOptions options = attribution_options(method, steps, baseline, contrast, s.model().tgt_vocab);
      return token_attribution(session_attribution(s, model.pass(), step, hypothesis, options, token),
                               s.model().src_vocab, s.model().tgt_vocab);
    });
  }

  // What attribution() and sentence_attribution() with these arguments would cost, counted before running.
  val attribution_cost(const ModelHandle& model, int step, int hypothesis, const std::string& method, int steps,
                       const std::string& baseline, const std::string& contrast) const {
    return guarded([&] {
      const DecodeSession& s = session();
      const AttributionOptions options = attribution_options(method, steps, baseline, contrast, s.model().tgt_vocab);
      return cost_val(session_attribution_cost(s, model.pass(), step, hypothesis, options));
    });
  }
  val sentence_attribution_cost(const ModelHandle& model, int last, int hypothesis, const std::string& method,
                                int steps, const std::string& baseline, const std::string& contrast) const {
    return guarded([&] {
      const DecodeSession& s = session();
      const AttributionOptions options = attribution_options(method, steps, baseline, contrast, s.model().tgt_vocab);
      return cost_val(attnscope::sentence_attribution_cost(s, model.pass(), options, last, hypothesis));
    });
  }

  // Every step of the path to hypothesis `hypothesis` of step `last` (−1: the last) explained, and τ
  // per head averaged over them: {steps, meanAgreement?}.
  val sentence_attribution(const ModelHandle& model, int last, int hypothesis, const std::string& method, int steps,
                           const std::string& baseline, const std::string& contrast) const {
    return guarded([&] {
      const DecodeSession& s = session();
      const AttributionOptions options = attribution_options(method, steps, baseline, contrast, s.model().tgt_vocab);
      const SentenceAttribution all = attnscope::sentence_attribution(s, model.pass(), options, last, hypothesis);
      val list = val::array();
      for (std::size_t i = 0; i < all.steps.size(); ++i)
        list.set(i, token_attribution(all.steps[i], s.model().src_vocab, s.model().tgt_vocab));
      val out = val::object();
      out.set("steps", list);
      if (!all.mean.tau.empty()) out.set("meanAgreement", agreement(all.mean));
      return out;
    });
  }

  val detokenize(const val& ids) const {
    return guarded([&] { return val(session().detokenize(emscripten::vecFromJSArray<int>(ids))); });
  }

 private:
  const DecodeSession& session() const {
    if (!session_) throw Error("the session was not started");
    return *session_;
  }
  // The first step's map of the site whose queries and keys are the context (a decoder-only model's "self").
  const Tensor& prompt_attention() const {
    const DecodeSession& s = session();
    if (s.model().family->input() != ModelFamily::Input::Prompt)
      throw InputError("only a decoder-only model's session has a prompt to analyse");
    if (s.steps_taken() == 0) throw InputError("the prompt is read by the first step: take a step first");
    const SiteTable& sites = s.model().sites();
    for (std::size_t i = 0; i < sites.size(); ++i)
      if (sites[i].per_step && sites[i].queries == Side::Target && sites[i].keys == Side::Target)
        return session_attention(s, static_cast<int>(i), 0, 0);
    throw InputError("this model has no self-attention over its context");
  }
  DecodeSession& session() {
    if (!session_) throw Error("the session was not started");
    return *session_;
  }
  val hypothesis(const Vocabulary& vocab, const std::vector<int>& ids, double score, double normalized, bool finished,
                 int node) const {
    val h = val::object();
    h.set("ids", to_array(ids));
    h.set("tokens", tokens_of(vocab, ids));
    h.set("text", session().detokenize(ids));
    h.set("score", score);
    h.set("normalizedScore", normalized);
    h.set("finished", finished);
    h.set("node", node);
    return h;
  }

  val finished(const std::vector<FinishedHypothesis>& list) const {
    val out = val::array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const FinishedHypothesis& f = list[i];
      out.set(i, hypothesis(session().model().tgt_vocab, f.tokens, f.score, f.normalized_score, f.finished, f.node));
    }
    return out;
  }

  val stepped(const StepRecord& r) const {
    val out = record(r);
    out.set("state", status());
    return out;
  }

  val record(const StepRecord& r) const {
    const Vocabulary& vocab = session().model().tgt_vocab;
    const SiteTable& sites = session().model().sites();
    val expansions = val::array();
    for (std::size_t i = 0; i < r.expansions.size(); ++i) {
      const Expansion& e = r.expansions[i];
      val top = val::array();
      for (std::size_t k = 0; k < e.top.size(); ++k) {
        val a = val::object();
        a.set("id", e.top[k].token);
        a.set("token", vocab.token(e.top[k].token));
        a.set("logit", e.top[k].logit);
        a.set("logProb", e.top[k].log_prob);
        a.set("prob", e.top[k].prob);
        top.set(k, a);
      }
      val x = val::object();
      x.set("hypothesis", e.hypothesis);
      x.set("node", e.node);
      x.set("prefix", to_array(e.prefix));
      x.set("prefixTokens", tokens_of(vocab, e.prefix));
      x.set("score", e.score);
      x.set("top", top);
      if (!e.trace.attention.empty()) {  // captured: {site name: {shape, data}} for the per-step sites
        val attention = val::object();
        for (std::size_t k = 0; k < sites.size(); ++k) {
          const Tensor& t = site_attention(e.trace.attention, static_cast<int>(k));
          if (sites[k].per_step && !t.empty()) attention.set(sites[k].name, tensor(t));
        }
        x.set("attention", attention);
      }
      expansions.set(i, x);
    }
    val out = val::object();
    out.set("step", r.step);
    out.set("expansions", expansions);
    out.set("forced", r.forced);
    if (r.forced) {
      out.set("forcedToken", r.forced_token);
      out.set("forcedLogProb", r.forced_log_prob);
    }
    return out;
  }

  std::unique_ptr<DecodeSession> session_;
};

// "source,target" lines (the CLI's --pairs format) as {sources, targets}, read and checked
// line by line (train/corpus.h): at most `max_pairs` pairs (the caller's limit, at most the
// engine's), stopping at the first line that breaks a limit.
val parse_pairs(const std::string& csv, int max_pairs) {
  return guarded([&] {
    val sources = val::array(), targets = val::array();
    const auto pairs = train::parse_pairs_csv(csv, max_pairs);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      sources.set(i, pairs[i].source);
      targets.set(i, pairs[i].target);
    }
    val out = val::object();
    out.set("sources", sources);
    out.set("targets", targets);
    return out;
  });
}

// An induction-heads corpus as {symbols: words, pairs: [[source, target]] (a language model
// learns <bos> source target </s>), probes: texts}.
val corpus_object(const train::InductionCorpus& corpus) {
  val out = val::object();
  out.set("symbols", to_array(corpus.symbols));
  val pairs = val::array();
  for (std::size_t i = 0; i < corpus.pairs.size(); ++i)
    pairs.set(i, to_array(std::vector<std::string>{corpus.pairs[i].source, corpus.pairs[i].target}));
  out.set("pairs", pairs);
  out.set("probes", to_array(corpus.probes));
  return out;
}

// A corpus seed from JS: a whole number a double holds exactly.
std::uint64_t corpus_seed(double seed, const std::string& corpus) {
  if (!(seed >= 0 && seed <= 9007199254740991.0 && seed == static_cast<double>(static_cast<std::uint64_t>(seed))))
    throw InputError(corpus + ": the seed must be an integer in [0, 2^53)");
  return static_cast<std::uint64_t>(seed);
}

// Random halves repeated twice (train/repeated_sequences.h): {halfLength, minHalfLength,
// maxPrefix, symbols, sequences, seed, probes} -> corpus_object; the pairs are [prefix and first
// half, first half].
val repeated_sequences(int half_length, int min_half_length, int max_prefix, int symbols, int sequences, double seed,
                       int probes) {
  return guarded([&] {
    train::RepeatedSequencesOptions options;
    options.half_length = half_length;
    options.min_half_length = min_half_length;
    options.max_prefix = max_prefix;
    options.symbols = symbols;
    options.sequences = sequences;
    options.seed = corpus_seed(seed, "repeated sequences");
    return corpus_object(train::repeated_sequences(options, probes));
  });
}

// In-context bigram walks (train/successor_walks.h): {symbols, length, jump, sequences, seed,
// probeLength, probes} -> corpus_object; the pairs are [first half, second half] of each walk.
val successor_walks(int symbols, int length, double jump, int sequences, double seed, int probe_length, int probes) {
  return guarded([&] {
    train::SuccessorWalksOptions options;
    options.symbols = symbols;
    options.length = length;
    options.jump = jump;
    options.sequences = sequences;
    options.seed = corpus_seed(seed, "successor walks");
    options.probe_length = probe_length;
    return corpus_object(train::successor_walks(options, probes));
  });
}

// Training on sentence pairs, one epoch per call (src/train/trainer.h).
class TrainerHandle {
 public:
  // A fresh word-level model: vocabularies from the pairs, family and architecture from the options.
  val create(const val& sources, const val& targets, const std::string& options) {
    return guarded([&] {
      const train::TrainSetup setup = train::train_setup_from_json(options);
      auto pairs = pairs_of(sources, targets);
      start(train::fresh_trainable(pairs, setup.family, setup.architecture, setup.options.seed), std::move(pairs), setup);
      return val::undefined();
    });
  }

  // Continues from a model file's bytes (its family, architecture and vocabularies).
  val resume(const val& array, const val& sources, const val& targets, const std::string& options) {  // a Uint8Array
    return guarded([&] {
      const train::TrainSetup setup = train::train_setup_from_json(options);
      if (setup.has_architecture)
        throw InputError("the family and architecture come from the model being continued: leave them out");
      const std::vector<std::uint8_t> bytes = bytes_of(array);
      start(train::trainable_from_bytes_any(bytes.data(), bytes.size()),
            pairs_of(sources, targets), setup);
      return val::undefined();
    });
  }

  // One epoch: {epoch, loss, exact (null when the options say not to count), total, seconds,
  // updates (optimiser steps so far)}; `into` receives the weights after it.
  val epoch(ModelHandle& into) {
    return guarded([&] {
      const train::EpochReport r = trainer().epoch();
      into.adopt(r.model);
      val out = val::object();
      out.set("epoch", r.epoch);
      out.set("loss", r.loss);
      out.set("exact", r.exact < 0 ? val::null() : val(r.exact));
      out.set("total", r.total);
      out.set("seconds", r.seconds);
      out.set("updates", trainer().updates_done());
      return out;
    });
  }

  val epochs_done() const {
    return guarded([&] { return val(trainer().epochs_done()); });
  }

  // The pairs the next epochs train on (a corpus drawn afresh each epoch); the model and the
  // optimiser carry on.
  val set_pairs(const val& sources, const val& targets) {
    return guarded([&] {
      trainer().set_pairs(pairs_of(sources, targets));
      return val::undefined();
    });
  }

  // The current weights as a .safetensors file (a Uint8Array copy).
  val export_bytes() {
    return guarded([&] {
      const std::vector<std::uint8_t> bytes = trainer().export_bytes();
      return val::global("Uint8Array").new_(emscripten::typed_memory_view(bytes.size(), bytes.data()));
    });
  }

 private:
  static std::vector<train::TrainPair> pairs_of(const val& sources, const val& targets) {
    const auto src = emscripten::vecFromJSArray<std::string>(sources);
    const auto tgt = emscripten::vecFromJSArray<std::string>(targets);
    if (src.size() != tgt.size()) throw InputError("sources and targets must have the same length");
    std::vector<train::TrainPair> pairs;
    for (std::size_t i = 0; i < src.size(); ++i) pairs.push_back({src[i], tgt[i]});
    train::check_pairs(pairs);  // the limits a CSV line is held to
    return pairs;
  }
  void start(std::unique_ptr<train::Trainable> model, std::vector<train::TrainPair> pairs,
             const train::TrainSetup& setup) {
    trainer_ = std::make_unique<train::Trainer>(std::move(model), std::move(pairs), setup.options);
  }
  train::Trainer& trainer() const {
    if (!trainer_) throw Error("the trainer was not created");
    return *trainer_;
  }

  std::unique_ptr<train::Trainer> trainer_;
};

// Bytes currently allocated on the WASM heap (for leak checks; the heap itself never shrinks).
double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }

// Makes the heap hold at least `bytes` of free memory whose pages the system has already mapped:
// grows it as a model's load would, writes a byte per 4 KiB page and frees it all again (the
// allocator keeps the pages). The JS wrapper calls it while a model downloads, so that the
// load's first touches of fresh memory, ~20 us each on some virtual machines (a 12 MB model's
// load took ~20,000 of them), happen while the thread would wait for the network.
// Not enough memory: nothing is done (the load reports its own error).
void warm_heap(double bytes) {
  if (!(bytes > 0) || bytes > 1e9) return;
  const std::size_t n = static_cast<std::size_t>(bytes);
  auto* p = static_cast<volatile unsigned char*>(std::malloc(n));
  if (!p) return;
  for (std::size_t i = 0; i < n; i += 4096) p[i] = 0;
  std::free(const_cast<unsigned char*>(p));
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnscope) {
  using emscripten::class_;
  emscripten::function("heapInUse", &heap_in_use);
  emscripten::function("warmHeap", &warm_heap);
  class_<ModelHandle>("ModelHandle")
      .constructor<>()
      .function("load", &ModelHandle::load)
      .function("info", &ModelHandle::info)
      .function("vocab", &ModelHandle::vocab)
      .function("tokenize", &ModelHandle::tokenize)
      .function("encodeText", &ModelHandle::encode_text)
      .function("fillMask", &ModelHandle::fill_mask)
      .function("maskAttribution", &ModelHandle::mask_attribution)
      .function("headStudy", &ModelHandle::head_study)
      .function("headAblation", &ModelHandle::head_ablation)
      .function("textAnalysis", &ModelHandle::text_analysis)
      .function("textAttentionLogits", &ModelHandle::text_attention_logits)
      .function("score", &ModelHandle::score)
      .function("headSweep", &ModelHandle::head_sweep)
      .function("bleuByLength", &ModelHandle::bleu_by_length)
      .function("embeddingPca", &ModelHandle::embedding_pca)
      .function("positionalEncoding", &ModelHandle::positional_encoding)
      .function("embeddingCosine", &ModelHandle::embedding_cosine)
      .function("inductionScores", &ModelHandle::induction_scores);
  emscripten::function("parsePairs", &parse_pairs);
  emscripten::function("repeatedSequences", &repeated_sequences);
  emscripten::function("successorWalks", &successor_walks);
  emscripten::function("bleuByLength", &bleu_by_length_of);
  class_<TrainerHandle>("TrainerHandle")
      .constructor<>()
      .function("create", &TrainerHandle::create)
      .function("resume", &TrainerHandle::resume)
      .function("epoch", &TrainerHandle::epoch)
      .function("epochsDone", &TrainerHandle::epochs_done)
      .function("setPairs", &TrainerHandle::set_pairs)
      .function("exportBytes", &TrainerHandle::export_bytes);
  class_<SessionHandle>("SessionHandle")
      .constructor<>()
      .function("start", &SessionHandle::start)
      .function("step", &SessionHandle::step)
      .function("force", &SessionHandle::force)
      .function("run", &SessionHandle::run)
      .function("back", &SessionHandle::back)
      .function("state", &SessionHandle::state)
      .function("source", &SessionHandle::source)
      .function("history", &SessionHandle::history)
      .function("attention", &SessionHandle::attention)
      .function("logits", &SessionHandle::logits)
      .function("tree", &SessionHandle::tree)
      .function("rollout", &SessionHandle::rollout)
      .function("attentionLogits", &SessionHandle::attention_logits)
      .function("valueWeighted", &SessionHandle::value_weighted)
      .function("encoderPatterns", &SessionHandle::encoder_patterns)
      .function("promptRollout", &SessionHandle::prompt_rollout)
      .function("promptPatterns", &SessionHandle::prompt_patterns)
      .function("logitLens", &SessionHandle::logit_lens)
      .function("attribution", &SessionHandle::attribution)
      .function("sentenceAttribution", &SessionHandle::sentence_attribution)
      .function("attributionCost", &SessionHandle::attribution_cost)
      .function("sentenceAttributionCost", &SessionHandle::sentence_attribution_cost)
      .function("detokenize", &SessionHandle::detokenize);
}
