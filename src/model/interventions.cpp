#include "model/interventions.h"

#include "core/error.h"
#include "core/quote.h"

namespace attnscope {

bool Interventions::empty() const {
  return attention.empty() && masked_heads.empty() && !skip_encoder_self_attention && !skip_decoder_self_attention &&
         !skip_cross_attention && !skip_ffn && !skip_layer_norm && !copy_source_encoding &&
         !last_source_state;
}

static void check_index(const AttentionSiteInfo& site, int layer, int head, bool allow_all) {
  if (layer < (allow_all ? -1 : 0) || layer >= site.layers)
    throw IndexError(site.name + " attention layer " + std::to_string(layer) + " is out of range [0, " +
                     std::to_string(site.layers) + ")");
  if (head < (allow_all ? -1 : 0) || head >= site.heads)
    throw IndexError(site.name + " attention head " + std::to_string(head) + " is out of range [0, " +
                     std::to_string(site.heads) + ")");
}

static void resolve(std::string& site_name, const SiteTable& sites, int layer, int head, bool allow_all) {
  const int site = site_name.empty() ? default_intervention_site(sites) : find_site(sites, site_name);
  site_name = sites[site].name;
  check_index(sites[site], layer, head, allow_all);
}

Interventions Interventions::resolved(const SiteTable& sites) const {
  Interventions out = *this;
  for (AttentionOverride& o : out.attention) resolve(o.site, sites, o.layer, o.head, true);
  for (HeadMask& m : out.masked_heads) resolve(m.site, sites, m.layer, m.head, false);
  return out;
}

AttentionEdits Interventions::attention_edits(const std::string& site, int layer, bool skip, int n_heads) const {
  AttentionEdits e;
  e.skip = skip;
  for (const AttentionOverride& o : attention) {
    if (o.site != site || (o.layer != -1 && o.layer != layer)) continue;
    if (e.heads.empty()) e.heads.resize(n_heads);
    for (int h = 0; h < n_heads; ++h) {
      if (o.head != -1 && o.head != h) continue;
      e.heads[h].replaced = true;  // a later override of the same head wins
      e.heads[h].pattern = o.pattern;
      e.heads[h].custom = o.custom;
    }
  }
  for (const HeadMask& m : masked_heads) {
    if (m.site != site || m.layer != layer) continue;
    if (e.heads.empty()) e.heads.resize(n_heads);
    e.heads[m.head].masked = true;
  }
  return e;
}

bool InterventionSupport::refuses(const std::string& option) const {
  for (const Refusal& r : refused)
    if (r.option == option) return true;
  return false;
}

void InterventionSupport::check(const Interventions& iv) const {
  const std::pair<const char*, bool> used[] = {
      {"maskHeads", !iv.masked_heads.empty()},
      {"encoderSelfAttention", iv.skip_encoder_self_attention},
      {"decoderSelfAttention", iv.skip_decoder_self_attention},
      {"crossAttention", iv.skip_cross_attention},
      {"ffn", iv.skip_ffn},
      {"layerNorm", iv.skip_layer_norm},
      {"copySourceEncoding", iv.copy_source_encoding},
      {"lastSourceState", iv.last_source_state},
  };
  for (const Refusal& r : refused)
    for (const auto& [option, on] : used)
      if (on && r.option == option) throw InputError(r.reason);
}

HeadEdit::Pattern parse_attention_pattern(const std::string& name) {
  if (name == "uniform") return HeadEdit::Pattern::Uniform;
  if (name == "beginning") return HeadEdit::Pattern::Beginning;
  if (name == "end") return HeadEdit::Pattern::End;
  if (name == "custom") return HeadEdit::Pattern::Custom;
  throw InputError("unknown attention pattern " + quote(name) + " (use uniform, beginning, end or custom)");
}

}  // namespace attnscope
