#pragma once
// Kendall's rank correlation τ-b (Kendall 1945: the form with ties), as scipy.stats.kendalltau
// computes it: (concordant − discordant) / √((n0 − ties in x)(n0 − ties in y)), n0 = n(n−1)/2.
// Attribution compares each head's attention row with |attribution| through it.
#include <vector>

namespace attnscope {

// τ-b of two equally long lists, in [−1, 1]. NaN where it is undefined: fewer than two items, or
// one list all ties (scipy's answer too). Throws InputError when the lengths differ.
double kendall_tau_b(const std::vector<float>& x, const std::vector<float>& y);

}  // namespace attnscope
