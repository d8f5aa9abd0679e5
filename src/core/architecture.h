#pragma once
// Choices a layer is built with. They are read from a model file's config (model/config.h),
// but live here so that ops/ and layers/ need nothing from model/.

namespace attnscope {

// Swish: x·σ(x) (HF's "swish"/"silu"); GELUTanh: GELU's tanh approximation (GPT-2's "gelu_new")
enum class Activation { ReLU, GELU, Swish, GELUTanh };
enum class NormPosition { Post, Pre };  // LN(x + f(x))  vs  x + f(LN(x))

// Each choice's one name: as a model file's config spells it ("activation", "norm"), which is
// also how an architecture description shows it (model/architecture_description.h).
constexpr const char* activation_name(Activation a) {
  switch (a) {
    case Activation::ReLU: return "relu";
    case Activation::GELU: return "gelu";
    case Activation::Swish: return "swish";
    case Activation::GELUTanh: return "gelu_tanh";
  }
  return "";
}

constexpr const char* norm_name(NormPosition n) { return n == NormPosition::Post ? "post" : "pre"; }

}  // namespace attnscope
