// The model families this engine reads, by config.architecture. Adding a family: its folder
// under src/families/ and one line here.
#include "model/registry.h"

#include "core/quote.h"
#include "families/bert/bert.h"
#include "families/decoder_only/decoder_only.h"
#include "families/rnn/rnn.h"
#include "families/transformer/transformer.h"

namespace attnscope {
namespace {

struct Registration {
  const char* architecture;
  FamilyLoader load;
};

const Registration kFamilies[] = {
    {"transformer", &transformer::load},
    {"rnn", &rnn::load},
    {"bert", &bert::load},
    {"decoder_only", &decoder_only::load},
};

}  // namespace

FamilyLoader family_loader(const std::string& architecture) {
  std::string known;
  for (const Registration& r : kFamilies) {
    if (architecture == r.architecture) return r.load;
    known += (known.empty() ? "" : ", ") + std::string(r.architecture);
  }
  throw ModelFileError("config architecture " + quote(architecture) + " is not supported (this engine reads " + known + ")");
}

}  // namespace attnscope
