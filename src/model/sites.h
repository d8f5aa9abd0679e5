#pragma once
// Attention that describes itself. A model family publishes one table of its attention sites
// (where in the network attention weights are computed); traces hold one tensor per row of
// that table, and everything that shows, edits or analyses attention (the CLI JSON, the JS
// API, interventions, analyses) iterates over it or looks names up in it. The site names live
// only in the families' tables.
#include <string>
#include <vector>

namespace attnscope {

enum class Side { Source, Target };
const char* to_string(Side side);  // "source" | "target"

struct AttentionSiteInfo {
  std::string name;   // what callers pass, e.g. in interventions and session.attention(name, ...)
  std::string label;  // how the page titles it
  Side queries = Side::Target, keys = Side::Source;  // whose tokens the rows and columns are
  int layers = 0, heads = 0;
  // true: computed at each decoding step, one query row per step ([layer][head][keys]);
  // false: once per source sentence ([layer][head][queries][keys]).
  bool per_step = true;
  // Engine-only: the prefix of this site's q/k/v in the named vectors ("layers.<l>.<prefix>q").
  std::string vectors;
  // Engine-only: the key the CLI's JSON has always used for this site's tensors.
  std::string json_key;
  // The interventions' skip that switches this site's sub-layer off (DecodeOptions skip name,
  // e.g. "crossAttention"), published so that no caller infers it from the site's name.
  std::string skip;
  // Whether "copy the source encoding into the decoder" replaces this site's output.
  bool copied_by_source_encoding = false;

  // Custom attention weights (a fixed row per query) fit this site: its keys are the source,
  // not a target prefix that grows by one position per step. The one owner of that rule.
  bool takes_custom_weights() const { return keys == Side::Source; }
};

using SiteTable = std::vector<AttentionSiteInfo>;

// The index of the site called `name`; throws InputError listing the table's names.
int find_site(const SiteTable& sites, const std::string& name);

// The site an intervention means when it names none: attention from the target to the source
// (cross-attention, for an encoder-decoder). Throws InputError when the table has none.
int default_intervention_site(const SiteTable& sites);

}  // namespace attnscope
