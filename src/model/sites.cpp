#include "model/sites.h"

#include "core/error.h"
#include "core/quote.h"

namespace attnscope {

const char* to_string(Side side) { return side == Side::Source ? "source" : "target"; }

int find_site(const SiteTable& sites, const std::string& name) {
  std::string known;
  for (std::size_t i = 0; i < sites.size(); ++i) {
    if (sites[i].name == name) return static_cast<int>(i);
    known += (i ? ", " : "") + sites[i].name;
  }
  throw InputError("unknown attention site " + quote(name) + " (this model has " + known + ")");
}

int default_intervention_site(const SiteTable& sites) {
  for (std::size_t i = 0; i < sites.size(); ++i)
    if (sites[i].queries == Side::Target && sites[i].keys == Side::Source) return static_cast<int>(i);
  throw InputError("name the attention site: this model has no attention from the target to the source");
}

}  // namespace attnscope
