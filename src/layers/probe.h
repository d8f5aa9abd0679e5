#pragma once
// Where a layer reports what it computed, for the page to draw. A null pointer means "not
// asked", so a plain translation records nothing and copies nothing.
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace attnscope {

using NamedVectors = std::map<std::string, Matrix>;

struct Probe {
  std::vector<Matrix>* self_attn = nullptr;   // per head: [queries, keys]
  std::vector<Matrix>* cross_attn = nullptr;  // per head: [queries, source]
  NamedVectors* vectors = nullptr;
  std::string prefix;  // e.g. "encoder.layers.0."

  bool wants_vectors() const { return vectors != nullptr; }
  void record(const std::string& name, const Matrix& value) const {
    if (vectors) (*vectors)[prefix + name] = value;
  }
  // An attention sub-layer's q, k, v and output under `site` ("self_", "" for an encoder's).
  void record_attention(const std::string& site, const Matrix& q, const Matrix& k, const Matrix& v,
                        const Matrix& out) const {
    record(site + "q", q);
    record(site + "k", k);
    record(site + "v", v);
    record(site + "attn_output", out);
  }
};

}  // namespace attnscope
