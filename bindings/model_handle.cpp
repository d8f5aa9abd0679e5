// The model handle's calls (model_handle.h): each converts its arguments, calls the engine and
// converts the result. No math lives here.
#include "model_handle.h"

#include <initializer_list>
#include <string>
#include <utility>

#include "js_bytes.h"

#include "analysis/attribution_session.h"
#include "analysis/encoder_study.h"
#include "analysis/bleu_by_length.h"
#include "analysis/encoding_analysis.h"
#include "analysis/head_importance.h"
#include "analysis/induction.h"
#include "analysis/scoring.h"
#include "analysis/vectors.h"
#include "decoding/options_json.h"
#include "decoding/source.h"
#include "model/encoder_only.h"

namespace attnscope::bindings {

namespace {

// An encoder-only model's encoding of one text: what the views draw.
val encoding(const Model& m, const Encoding& e, bool vectors) {
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

// The five shares of one attention distribution (analysis/encoder_study.h).
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

// An object whose fields are all text.
val text_object(std::initializer_list<std::pair<const char*, std::string>> fields) {
  val out = val::object();
  for (const auto& [key, value] : fields) out.set(key, value);
  return out;
}

// The family's description of its architecture (model/architecture_description.h), as plain objects.
val architecture_description(const ArchitectureDescription& d) {
  val blocks = val::array(), links = val::array();
  for (std::size_t i = 0; i < d.blocks.size(); ++i) {
    const ArchitectureDescription::Block& b = d.blocks[i];
    blocks.set(i, text_object({{"id", b.id}, {"column", b.column}, {"label", b.label}, {"detail", b.detail}}));
  }
  for (std::size_t i = 0; i < d.links.size(); ++i) {
    const ArchitectureDescription::Link& l = d.links[i];
    links.set(i, text_object({{"from", l.from}, {"to", l.to}, {"label", l.label}}));
  }
  val out = text_object({{"family", d.family}, {"words", d.words}});
  out.set("blocks", blocks);
  out.set("links", links);
  return out;
}

}  // namespace

namespace {

Model::LoadOptions load_options(bool int8, bool binary16) {
  Model::LoadOptions options;
  options.int8 = int8;
  options.binary16 = binary16;
  return options;
}

}  // namespace

val ModelHandle::load(const val& array, bool int8, bool binary16) {  // array: a Uint8Array
  return guarded([&] {
    // Read from the page's array a tensor at a time; nothing keeps the array after the load.
    model_ = Model::load(std::make_shared<JsBytes>(array), load_options(int8, binary16));
    pass_.reset();
    return val::undefined();
  });
}

val ModelHandle::load_staged(StagedFile& file, bool int8, bool binary16) {
  return guarded([&] {
    const std::shared_ptr<StagedBytes> bytes = file.take();
    if (!bytes) throw Error("internal error: a staged model file was loaded twice");
    bytes->check_complete();
    // Each tensor's staged bytes are freed as the load reads them.
    model_ = Model::load(bytes, load_options(int8, binary16));
    pass_.reset();
    return val::undefined();
  });
}

val ModelHandle::info() const {
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
    out.set("binary16", m.binary16);
    out.set("bfloat16", m.bfloat16);
    out.set("architecture", m.config.architecture);
    // The architecture in words and as a diagram, as the family describes itself.
    out.set("architectureDescription", architecture_description(m.family->describe(m)));
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
    // A prompt's rule (decoding/source.h): <bos> first unless the session's prependBos says otherwise.
    out.set("prependBos", input == ModelFamily::Input::Prompt && m.config.prepend_bos);
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

val ModelHandle::vocab(bool target) const {
  return guarded([&] { return to_array((target ? model().tgt_vocab : model().src_vocab).tokens()); });
}

val ModelHandle::tokenize(const std::string& text, bool target) const {
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

val ModelHandle::encode_text(const std::string& text, bool vectors, const std::string& interventions) const {
  return guarded([&] {
    const Model& m = model();
    const Encoding e = attnscope::encode_text(m, text, Capture{true, vectors, false}, interventions_from_json(interventions));
    return encoding(m, e, vectors);
  });
}

val ModelHandle::fill_mask(const std::string& text, int top_k, const std::string& interventions) const {
  return guarded([&] {
    const Model& m = model();
    const FillMask f = attnscope::fill_mask(m, text, top_k, Capture{true, false, false}, interventions_from_json(interventions));
    val out = encoding(m, f.encoding, false);
    val masks = val::array();
    for (std::size_t i = 0; i < f.masks.size(); ++i) {
      val top = val::array();
      for (std::size_t k = 0; k < f.masks[i].top.size(); ++k) {
        const Candidate& c = f.masks[i].top[k];
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

val ModelHandle::head_study(const std::string& text, const std::string& interventions) const {
  return guarded([&] {
    const Model& m = model();
    const Encoding e = encode_for_study(m, text, interventions_from_json(interventions));
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
    out.set("attention", tensor(site_attention(e.trace.attention, e.self_site)));
    return out;
  });
}

val ModelHandle::text_analysis(const std::string& text, const std::string& interventions) const {
  return guarded([&] {
    const Model& m = model();
    const Encoding e = attnscope::encode_text(m, text, Capture{true, true, false}, interventions_from_json(interventions));
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

val ModelHandle::text_attention_logits(const std::string& text, const std::string& interventions,
                                       const std::string& site, int layer, int head, int query) const {
  return guarded([&] {
    const Model& m = model();
    const Encoding e = attnscope::encode_text(m, text, Capture{true, true, false}, interventions_from_json(interventions));
    const RowVector logits = attention_logits(m, e.trace, site, layer, head, query);
    const RowVector weights = attention_row(m, e.trace, site, layer, head, query);
    val out = val::object();
    out.set("logits", float32_copy(logits.data(), logits.size()));
    out.set("weights", float32_copy(weights.data(), weights.size()));
    return out;
  });
}

val ModelHandle::head_ablation(const val& sentences, const val& progress) const {
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

val ModelHandle::score(const std::string& source, const std::string& target, const std::string& interventions,
                       const val& prepend_bos) const {
  return guarded([&] {
    const Model& m = model();
    const Encoded t = encode(*m.tgt_tokenizer, m.tgt_vocab, target, m.config.special.unk);
    const TargetScore s = score_target(m, prepare_source(m, source, optional_flag(prepend_bos)), t.ids,
                                       interventions_from_json(interventions));
    val out = val::object();
    out.set("logProb", s.log_prob);
    out.set("tokens", tokens_of(m.tgt_vocab, t.ids));
    out.set("tokenLogProbs", float32_copy(s.token_log_probs.data(), s.token_log_probs.size()));
    return out;
  });
}

val ModelHandle::head_sweep(const val& sources, const val& references, bool bleu, int first, int count,
                            const val& progress, const val& prepend_bos) const {
  return guarded([&] {
    const Model& m = model();
    const auto src = emscripten::vecFromJSArray<std::string>(sources);
    const auto ref = emscripten::vecFromJSArray<std::string>(references);
    if (src.size() != ref.size()) throw InputError("sources and references must have the same length");
    std::vector<DevPair> dev;
    for (std::size_t i = 0; i < src.size(); ++i)
      dev.push_back({prepare_source(m, src[i], optional_flag(prepend_bos)),
                     encode(*m.tgt_tokenizer, m.tgt_vocab, ref[i], m.config.special.unk).ids, ref[i]});
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

val ModelHandle::bleu_by_length(const val& sources, const val& references, const std::string& options, const val& edges,
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

val ModelHandle::embedding_pca(bool target) const {
  // Every row is a point of the PCA: the whole table, converted for this call only.
  return guarded([&] {
    return matrix(pca_2d(model().family->token_embeddings(target ? Side::Target : Side::Source).to_matrix()));
  });
}

val ModelHandle::positional_encoding() const {
  return guarded([&] { return matrix(model().family->positional_encoding()); });
}

val ModelHandle::embedding_cosine(const val& src_ids, const val& tgt_ids) const {
  return guarded([&] {
    const Model& m = model();
    auto rows = [](const ops::WeightMatrix& table, const std::vector<int>& ids) {
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

val ModelHandle::induction_scores(const val& probes, const val& symbols) const {
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

val ModelHandle::mask_attribution(const std::string& text, const std::string& method, int steps,
                                  const std::string& baseline, const std::string& contrast) const {
  return guarded([&] {
    const Model& m = model();
    const auto all = fill_mask_attribution(m, text, pass(), attribution_options(method, steps, baseline, contrast, m.src_vocab));
    val out = val::array();
    for (std::size_t i = 0; i < all.size(); ++i) out.set(i, token_attribution(all[i], m.src_vocab, m.src_vocab));
    return out;
  });
}

train::Differentiable& ModelHandle::pass() const {
  if (!pass_) pass_ = train::differentiable_for(model_);
  return *pass_;
}

void ModelHandle::adopt(std::shared_ptr<const Model> model) {
  model_ = std::move(model);
  pass_.reset();
}

const std::shared_ptr<const Model>& ModelHandle::shared() const { return model_; }

const Model& ModelHandle::model() const {
  if (!model_) throw Error("no model is loaded");
  return *model_;
}

DecodeOptions ModelHandle::model_defaults() const {
  return with_generation_defaults(DecodeOptions{}, model().generation);
}

}  // namespace attnscope::bindings
