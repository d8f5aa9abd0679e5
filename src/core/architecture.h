#pragma once
// Choices a layer is built with. They are read from a model file's config (model/config.h),
// but live here so that ops/ and layers/ need nothing from model/.

namespace attnscope {

// Swish: x·σ(x) (HF's "swish"/"silu"); GELUTanh: GELU's tanh approximation (GPT-2's "gelu_new")
enum class Activation { ReLU, GELU, Swish, GELUTanh };
enum class NormPosition { Post, Pre };  // LN(x + f(x))  vs  x + f(LN(x))

}  // namespace attnscope
