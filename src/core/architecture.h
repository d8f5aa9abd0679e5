#pragma once
// Choices a layer is built with. They are read from a model file's config (model/config.h),
// but live here so that ops/ and layers/ need nothing from model/.

namespace attnscope {

enum class Activation { ReLU, GELU, Swish };  // Swish: x·σ(x) (HF's "swish"/"silu")
enum class NormPosition { Post, Pre };  // LN(x + f(x))  vs  x + f(LN(x))

}  // namespace attnscope
