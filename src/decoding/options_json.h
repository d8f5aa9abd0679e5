#pragma once
// Decoding options from a JSON object with the JavaScript API's camelCase names, e.g.
//   {"strategy": "beam", "beamSize": 5, "lengthPenalty": "gnmt", "alpha": 0.6, "maxLength": 50,
//    "capture": {"attention": true, "logits": true, "vectors": false}}
// Unknown names and wrong types are InputErrors, so a typo never passes silently.
#include <string>

#include "decoding/options.h"

namespace attnscope {

// The fields the object names replace those of `base` (callers pass the model's generation
// defaults there, with_generation_defaults in options.h, so that a checkpoint decodes as its
// authors configured it unless the caller says otherwise).
DecodeOptions decode_options_from_json(const std::string& text, const DecodeOptions& base = DecodeOptions{});

// Just the "interventions" object of the options, e.g. {"skip": ["crossAttention"]}.
Interventions interventions_from_json(const std::string& text);

}  // namespace attnscope
