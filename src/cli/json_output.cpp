#include "cli/json_output.h"

namespace attnscope::cli {

using json = nlohmann::json;

static json nested(const Tensor& t, std::size_t dim, std::size_t& offset) {
  json out = json::array();
  for (int i = 0; i < t.shape[dim]; ++i) {
    if (dim + 1 == t.shape.size()) out.push_back(t.data[offset++]);
    else out.push_back(nested(t, dim + 1, offset));
  }
  return out;
}

json tensor_to_json(const Tensor& t) {
  if (t.shape.empty()) return json::array();
  std::size_t offset = 0;
  return nested(t, 0, offset);
}

static std::vector<std::string> tokens_of(const Model& model, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(model.tgt_vocab.token(id));
  return out;
}

// Attention per site of the model's table: {"<site name>": tensor} for the sites `trace`
// holds, and each also under the key the CLI has always used for it ("cross_attn", ...).
static void add_attention(json& out, const Model& model, const std::vector<Tensor>& trace, bool per_step) {
  json by_name = json::object();
  const SiteTable& sites = model.sites();
  for (std::size_t i = 0; i < sites.size(); ++i) {
    if (sites[i].per_step != per_step) continue;
    json t = tensor_to_json(site_attention(trace, static_cast<int>(i)));
    out[sites[i].json_key] = t;
    by_name[sites[i].name] = std::move(t);
  }
  out["attention"] = std::move(by_name);
}

static json expansion_json(const Model& model, const Expansion& e) {
  json top = json::array();
  for (const Alternative& a : e.top)
    top.push_back({{"id", a.token}, {"token", model.tgt_vocab.token(a.token)}, {"logit", a.logit},
                   {"log_prob", a.log_prob}, {"prob", a.prob}});
  json out = {{"hypothesis", e.hypothesis}, {"prefix", tokens_of(model, e.prefix)}, {"score", e.score}, {"top_k", top}};
  add_attention(out, model, e.trace.attention, true);
  return out;
}

json beam_tree_to_json(const DecodeSession& session) {
  const Model& model = session.model();
  json nodes = json::array();
  const auto& tree = session.tree();
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const BeamNode& n = tree[i];
    nodes.push_back({{"id", i}, {"parent", n.parent}, {"step", n.step}, {"token_id", n.token},
                     {"token", model.tgt_vocab.token(n.token)}, {"log_prob", n.log_prob}, {"score", n.score},
                     {"status", to_string(n.status)}});
  }
  return nodes;
}

json session_to_json(const DecodeSession& session, bool with_tree) {
  const Model& model = session.model();
  json steps = json::array();
  for (const StepRecord& r : session.history()) {
    json expansions = json::array();
    for (const Expansion& e : r.expansions) expansions.push_back(expansion_json(model, e));
    json chosen = json::array();  // the continuations kept at this step (live, finished or cut)
    for (const BeamNode& n : session.tree())
      if (n.step == r.step && n.status != NodeStatus::Pruned) chosen.push_back(model.tgt_vocab.token(n.token));
    json step = {{"step", r.step}, {"expansions", expansions}, {"chosen", chosen}, {"forced", r.forced}};
    if (r.forced) step["forced_log_prob"] = r.forced_log_prob;
    steps.push_back(step);
  }
  json nbest = json::array();
  for (const FinishedHypothesis& h : session.nbest())
    nbest.push_back({{"translation", session.detokenize(h.tokens)}, {"tokens", tokens_of(model, h.tokens)},
                     {"ids", h.tokens}, {"score", h.score}, {"normalized_score", h.normalized_score},
                     {"finished", h.finished}});
  const Source& src = session.source();
  json out = {{"source_tokens", src.pieces},
              {"source_ids", src.ids},
              {"unknown_words", src.unknown},
              {"strategy", to_string(session.options().strategy)},
              {"hit_max_length", session.hit_max_length()},
              {"nbest", nbest},
              {"steps", steps}};
  add_attention(out, model, session.encoder_trace().attention, false);
  if (!nbest.empty()) {
    out["translation"] = nbest[0]["translation"];
    out["output_tokens"] = nbest[0]["tokens"];
    out["output_ids"] = nbest[0]["ids"];
    out["finished"] = nbest[0]["finished"];
  }
  if (with_tree) out["beam_tree"] = beam_tree_to_json(session);
  return out;
}

std::string json_text(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace attnscope::cli
