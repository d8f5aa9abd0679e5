#include "cli/logit_lens_json.h"

namespace attnscope::cli {

nlohmann::json logit_lens_to_json(const LogitLens& lens) {
  using nlohmann::json;
  json steps = json::array();
  for (const LensStep& s : lens.steps) {
    json layers = json::array();
    for (const LensLayer& l : s.layers) {
      json top = json::array();
      for (const LensToken& t : l.top) top.push_back({{"id", t.id}, {"piece", t.piece}, {"p", t.prob}});
      layers.push_back({{"top", top}, {"chosen", {{"p", l.chosen_prob}, {"rank", l.chosen_rank}}}});
    }
    steps.push_back({{"id", s.token}, {"token", s.piece}, {"layers", layers}});
  }
  return {{"layers", lens.layers}, {"steps", steps}};
}

}  // namespace attnscope::cli
