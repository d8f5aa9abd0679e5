#include "analysis/induction.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <string>

#include "model/seq2seq.h"
#include "ops/ops.h"

namespace attnscope {
namespace {

// The site where the model's tokens attend to the tokens before them, one query per step.
int self_attention_site(const Model& model) {
  const SiteTable& sites = model.sites();
  for (std::size_t s = 0; s < sites.size(); ++s)
    if (sites[s].queries == Side::Target && sites[s].keys == Side::Target && sites[s].per_step &&
        model.family->attention_layer(static_cast<int>(s), 0) != nullptr)
      return static_cast<int>(s);
  throw InputError("the model has no causal self-attention with queries, keys and values: no induction scores");
}

void check_probe(const Model& model, const std::vector<int>& probe, std::size_t index) {
  const std::string name = "induction probe " + std::to_string(index + 1);
  const std::size_t n = probe.size() / 2;
  if (n == 0 || probe.size() % 2 != 0)
    throw InputError(name + " must have an even number of tokens (a sequence, then the same again), got " +
                     std::to_string(probe.size()));
  for (std::size_t i = 0; i < n; ++i)
    if (probe[i] != probe[n + i])
      throw InputError(name + ": token " + std::to_string(n + i + 1) + " does not repeat token " +
                       std::to_string(i + 1));
  const Eigen::Index vocab = model.family->token_embeddings(Side::Target).rows();
  for (std::size_t i = 0; i < probe.size(); ++i)
    if (probe[i] < 0 || probe[i] >= vocab)
      throw InputError(name + ": token " + std::to_string(i + 1) + " has id " + std::to_string(probe[i]) +
                       ", outside the vocabulary [0, " + std::to_string(vocab) + ")");
  if (static_cast<int>(probe.size()) + 1 > model.config.max_positions)
    throw InputError(name + " has " + std::to_string(probe.size()) + " tokens: with <bos> more than the model's " +
                     std::to_string(model.config.max_positions) + " positions");
}

// The rows of `matrix` at `ids`, converted from its held form (InputError for an id outside it).
Eigen::MatrixXd rows_of(const ops::WeightMatrix& matrix, const std::vector<int>& ids, const char* what) {
  Eigen::MatrixXd out(static_cast<Eigen::Index>(ids.size()), matrix.cols());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= matrix.rows())
      throw InputError(std::string(what) + ": token id " + std::to_string(ids[i]) + " is outside the vocabulary [0, " +
                       std::to_string(matrix.rows()) + ")");
    out.row(static_cast<Eigen::Index>(i)) = matrix.row(ids[i]).cast<double>();
  }
  return out;
}

// What one probe's teacher-forced run gives: every head's causal map and the next-token losses.
struct ProbeRun {
  Tensor attention;  // [layer][head][T][T]
  double first_sum = 0, repeated_sum = 0;
  int first_count = 0, repeated_count = 0;
};

// Feeds <bos> and the probe one step at a time (a prompt-reading model's first step runs its
// prompt at once: here <bos> and the probe's first token), keeping each step's attention rows
// and the loss of the token that follows. The context always starts with <bos>, whatever the
// model's rule for prompts (Olsson et al.'s sequences follow a start token).
ProbeRun run_probe(const Model& model, int site, const std::vector<int>& context) {
  const AttentionSiteInfo& info = model.sites()[site];
  const int T = static_cast<int>(context.size()), half = (T - 1) / 2;
  ProbeRun run;
  run.attention = Tensor({info.layers, info.heads, T, T});
  const Matrix memory = encode(model, {context[0], context[1]}, Capture{}, nullptr);
  const auto state = start_decoder(model, memory);
  Capture capture;
  capture.attention = true;
  for (int fed = 0, next = 0; fed < T;) {
    StepTrace trace;
    const Matrix logits = decode_step(model, *state, context[next], capture, &trace);
    const Tensor& a = site_attention(trace.attention, site);
    // [layer][head][keys] for one new position, [layer][head][rows][keys] for several.
    const int keys = a.shape.empty() ? 0 : a.shape.back();
    const int rows = a.shape.size() == 4 ? a.shape[2] : 1;
    if (keys <= fed || keys > T || keys - rows != fed)
      throw Error("induction probe: a step's attention covers " + std::to_string(keys) + " keys after " +
                  std::to_string(fed) + " positions");
    for (int l = 0; l < info.layers; ++l)
      for (int h = 0; h < info.heads; ++h)
        for (int r = 0; r < rows; ++r)
          for (int k = 0; k < keys; ++k)
            run.attention.data[run.attention.offset({l, h, fed + r, k})] =
                a.data[((static_cast<std::size_t>(l) * info.heads + h) * rows + r) * keys + k];
    fed = keys;
    next = fed;
    if (fed >= T) break;
    // The logits are the last fed position's (fed - 1): they predict context[fed].
    const double loss = -ops::log_softmax_of_row(logits.row(0)).log_prob(logits(0, context[fed]));
    if (fed <= half) run.first_sum += loss, ++run.first_count;
    else run.repeated_sum += loss, ++run.repeated_count;
  }
  return run;
}

double copying_score_of(const Eigen::MatrixXd& circuit) {
  const Eigen::EigenSolver<Eigen::MatrixXd> solver(circuit, /*computeEigenvectors=*/false);
  if (solver.info() != Eigen::Success) return std::numeric_limits<double>::quiet_NaN();
  double real = 0, magnitude = 0;
  for (const auto& lambda : solver.eigenvalues()) real += lambda.real(), magnitude += std::abs(lambda);
  return magnitude > 0 ? real / magnitude : 0.0;
}

}  // namespace

double prefix_matching_score(const Matrix& head_map, const std::vector<int>& context, int first_query) {
  const int T = static_cast<int>(context.size());
  if (head_map.rows() != T || head_map.cols() != T)
    throw InputError("prefix matching: a " + std::to_string(head_map.rows()) + "x" + std::to_string(head_map.cols()) +
                     " attention map over a context of " + std::to_string(T) + " tokens");
  if (first_query < 1 || first_query >= T)
    throw InputError("prefix matching: first query " + std::to_string(first_query) + " outside [1, " +
                     std::to_string(T) + ")");
  double sum = 0;
  for (int q = first_query; q < T; ++q)
    for (int k = 1; k <= q; ++k)
      if (context[k - 1] == context[q]) sum += head_map(q, k);
  return sum / (T - first_query);
}

double previous_token_score(const Matrix& head_map) {
  const Eigen::Index T = head_map.rows();
  if (head_map.cols() != T || T < 2)
    throw InputError("previous token: a " + std::to_string(head_map.rows()) + "x" + std::to_string(head_map.cols()) +
                     " attention map (square, at least 2 positions)");
  double sum = 0;
  for (Eigen::Index q = 1; q < T; ++q) sum += head_map(q, q - 1);
  return sum / static_cast<double>(T - 1);
}

double eigenvalue_copying_score(const Matrix& circuit) {
  if (circuit.rows() != circuit.cols() || circuit.rows() == 0)
    throw InputError("copying score: the circuit must be a non-empty square matrix, got " +
                     std::to_string(circuit.rows()) + "x" + std::to_string(circuit.cols()));
  return copying_score_of(circuit.cast<double>());
}

InductionScores induction_scores(const Model& model, const std::vector<std::vector<int>>& probes,
                                 const std::vector<int>& tokens) {
  if (model.family->input() != ModelFamily::Input::Prompt)
    throw InputError("induction scores need a language model (one that continues a prompt)");
  if (probes.empty()) throw InputError("no induction probes given");
  if (tokens.empty()) throw InputError("no tokens given for the copying score");
  const int site = self_attention_site(model);
  const AttentionSiteInfo& info = model.sites()[site];
  InductionScores out;
  out.layers = info.layers;
  out.heads = info.heads;
  out.prefix_matching.assign(info.layers, std::vector<double>(info.heads, 0.0));
  out.previous_token.assign(info.layers, std::vector<double>(info.heads, 0.0));
  out.copying.assign(info.layers, std::vector<double>(info.heads, 0.0));

  double first = 0, repeated = 0;
  int first_n = 0, repeated_n = 0;
  for (std::size_t p = 0; p < probes.size(); ++p) {
    check_probe(model, probes[p], p);
    std::vector<int> context = {model.config.special.bos};
    context.insert(context.end(), probes[p].begin(), probes[p].end());
    const ProbeRun run = run_probe(model, site, context);
    const int T = static_cast<int>(context.size());
    for (int l = 0; l < info.layers; ++l)
      for (int h = 0; h < info.heads; ++h) {
        const Eigen::Map<const Matrix> map(run.attention.data.data() + run.attention.offset({l, h, 0, 0}), T, T);
        out.prefix_matching[l][h] += prefix_matching_score(map, context, (T - 1) / 2 + 1) / probes.size();
        out.previous_token[l][h] += previous_token_score(map) / probes.size();
      }
    first += run.first_sum, first_n += run.first_count;
    repeated += run.repeated_sum, repeated_n += run.repeated_count;
    if (p == 0) out.context = context, out.attention = run.attention;
  }
  out.loss_first_half = first_n ? first / first_n : 0.0;
  out.loss_repeated_half = repeated_n ? repeated / repeated_n : 0.0;

  const ops::WeightMatrix& unembedding = model.family->output_embeddings();
  const ops::WeightMatrix& embedding = model.family->token_embeddings(Side::Target);
  if (unembedding.empty() || unembedding.cols() != embedding.cols())
    throw InputError("the model publishes no unembedding matching its embeddings: no copying score");
  const Eigen::MatrixXd E = rows_of(embedding, tokens, "copying score");
  const Eigen::MatrixXd U = rows_of(unembedding, tokens, "copying score");
  for (int l = 0; l < info.layers; ++l) {
    const MultiHeadAttention* attention = model.family->attention_layer(site, l);
    const int dh = attention->v_proj.weight.rows() / info.heads;
    for (int h = 0; h < info.heads; ++h) {
      // M = (E W_Vᵀ)(W_Oᵀ Uᵀ) = A B shares its non-zero eigenvalues with B A [d_head, d_head].
      const Eigen::MatrixXd A = E * attention->v_proj.weight.middle_rows(h * dh, dh).cast<double>().transpose();
      const Eigen::MatrixXd B = attention->out_proj.weight.middle_cols(h * dh, dh).cast<double>().transpose() * U.transpose();
      const Eigen::MatrixXd small = A.rows() <= B.rows() ? Eigen::MatrixXd(A * B) : Eigen::MatrixXd(B * A);
      out.copying[l][h] = copying_score_of(small);
    }
  }
  return out;
}

}  // namespace attnscope
