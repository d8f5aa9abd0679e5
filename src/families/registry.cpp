// The model families this engine reads, by config.architecture. Adding a family: its folder
// under src/families/ and one line here (model/registry.h says what a line holds).
#include "model/registry.h"

#include <iterator>

#include "core/quote.h"
#include "families/bert/backward.h"
#include "families/bert/bert.h"
#include "families/decoder_only/backward.h"
#include "families/decoder_only/decoder_only.h"
#include "families/decoder_only/training.h"
#include "families/rnn/backward.h"
#include "families/rnn/rnn.h"
#include "families/rnn/training.h"
#include "families/transformer/backward.h"
#include "families/transformer/training.h"
#include "families/transformer/transformer.h"

namespace attnscope {
namespace {

const FamilyRegistration kFamilies[] = {
    {"transformer", &transformer::load, &transformer::kTraining, &train::transformer_differentiable},
    {"rnn", &rnn::load, &rnn::kTraining, &train::rnn_differentiable},
    {"bert", &bert::load, nullptr, &train::bert_differentiable},
    {"decoder_only", &decoder_only::load, &decoder_only::kTraining, &train::decoder_only_differentiable},
};

}  // namespace

const std::vector<FamilyRegistration>& registered_families() {
  static const std::vector<FamilyRegistration> families(std::begin(kFamilies), std::end(kFamilies));
  return families;
}

const FamilyRegistration* find_family(const std::string& architecture) {
  for (const FamilyRegistration& r : kFamilies)
    if (architecture == r.architecture) return &r;
  return nullptr;
}

FamilyLoader family_loader(const std::string& architecture) {
  if (const FamilyRegistration* r = find_family(architecture)) return r->load;
  std::string known;
  for (const FamilyRegistration& r : kFamilies) known += (known.empty() ? "" : ", ") + std::string(r.architecture);
  throw ModelFileError("config architecture " + quote(architecture) + " is not supported (this engine reads " + known + ")");
}

}  // namespace attnscope
