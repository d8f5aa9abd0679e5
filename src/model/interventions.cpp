#include "model/interventions.h"

#include "core/error.h"

namespace attnscope {

bool Interventions::empty() const {
  return attention.empty() && masked_heads.empty() && !skip_encoder_self_attention && !skip_decoder_self_attention &&
         !skip_cross_attention && !skip_ffn && !skip_layer_norm && !copy_source_encoding;
}

static int layers_at(AttentionSite site, const ModelConfig& c) {
  return site == AttentionSite::Encoder ? c.n_encoder_layers : c.n_decoder_layers;
}

static const char* name_of(AttentionSite site) {
  return site == AttentionSite::Encoder ? "encoder" : site == AttentionSite::DecoderSelf ? "decoder self" : "cross";
}

static void check_index(AttentionSite site, int layer, int head, bool allow_all, const ModelConfig& c) {
  const int layers = layers_at(site, c);
  if (layer < (allow_all ? -1 : 0) || layer >= layers)
    throw IndexError(std::string(name_of(site)) + " attention layer " + std::to_string(layer) + " is out of range [0, " +
                     std::to_string(layers) + ")");
  if (head < (allow_all ? -1 : 0) || head >= c.n_heads)
    throw IndexError(std::string(name_of(site)) + " attention head " + std::to_string(head) + " is out of range [0, " +
                     std::to_string(c.n_heads) + ")");
}

void Interventions::validate(const ModelConfig& c) const {
  for (const AttentionOverride& o : attention) check_index(o.site, o.layer, o.head, true, c);
  for (const HeadMask& m : masked_heads) check_index(m.site, m.layer, m.head, false, c);
}

static AttentionEdits edits_at(const Interventions& iv, AttentionSite site, int layer, bool skip, int n_heads) {
  AttentionEdits e;
  e.skip = skip;
  for (const AttentionOverride& o : iv.attention) {
    if (o.site != site || (o.layer != -1 && o.layer != layer)) continue;
    if (e.heads.empty()) e.heads.resize(n_heads);
    for (int h = 0; h < n_heads; ++h) {
      if (o.head != -1 && o.head != h) continue;
      e.heads[h].replaced = true;  // a later override of the same head wins
      e.heads[h].pattern = o.pattern;
      e.heads[h].custom = o.custom;
    }
  }
  for (const HeadMask& m : iv.masked_heads) {
    if (m.site != site || m.layer != layer) continue;
    if (e.heads.empty()) e.heads.resize(n_heads);
    e.heads[m.head].masked = true;
  }
  return e;
}

LayerEdits Interventions::encoder_layer(int layer, const ModelConfig& c) const {
  LayerEdits e;
  if (empty()) return e;
  e.self_attn = edits_at(*this, AttentionSite::Encoder, layer, skip_encoder_self_attention, c.n_heads);
  e.skip_ffn = skip_ffn;
  e.skip_layer_norm = skip_layer_norm;
  return e;
}

LayerEdits Interventions::decoder_layer(int layer, const ModelConfig& c) const {
  LayerEdits e;
  if (empty()) return e;
  e.self_attn = edits_at(*this, AttentionSite::DecoderSelf, layer, skip_decoder_self_attention, c.n_heads);
  e.cross_attn = edits_at(*this, AttentionSite::Cross, layer, skip_cross_attention, c.n_heads);
  e.skip_ffn = skip_ffn;
  e.skip_layer_norm = skip_layer_norm;
  e.copy_source_encoding = copy_source_encoding;
  return e;
}

AttentionSite parse_attention_site(const std::string& name) {
  if (name == "encoder") return AttentionSite::Encoder;
  if (name == "self") return AttentionSite::DecoderSelf;
  if (name == "cross") return AttentionSite::Cross;
  throw InputError("unknown attention site '" + name + "' (use encoder, self or cross)");
}

HeadEdit::Pattern parse_attention_pattern(const std::string& name) {
  if (name == "uniform") return HeadEdit::Pattern::Uniform;
  if (name == "beginning") return HeadEdit::Pattern::Beginning;
  if (name == "end") return HeadEdit::Pattern::End;
  if (name == "custom") return HeadEdit::Pattern::Custom;
  throw InputError("unknown attention pattern '" + name + "' (use uniform, beginning, end or custom)");
}

}  // namespace attnscope
