"""A reading of Hugging Face's Llama, Qwen2 and Qwen3 causal language models: the forward pass of
LlamaForCausalLM, Qwen2ForCausalLM and Qwen3ForCausalLM over a snapshot folder as save_pretrained
leaves it (config.json, model.safetensors or model-0000N-of-0000M.safetensors with
model.safetensors.index.json), and greedy / beam generation as generate() runs them for a
decoder-only model. Written from transformers' sources, independently of attnscope's engine and of
its own reference (models/reference/attnscope_ref/).

Where each part comes from (transformers):
  config             models/llama/configuration_llama.py, qwen2/configuration_qwen2.py,
                     qwen3/configuration_qwen3.py: the defaults of an absent field (LlamaConfig:
                     rms_norm_eps 1e-6, rope_theta 10000, attention_bias and mlp_bias false,
                     tie_word_embeddings false, head_dim null -> hidden_size // num_attention_heads;
                     Qwen2Config: head_dim hidden_size // num_attention_heads, sliding_window only
                     with use_sliding_window; Qwen3Config: head_dim 128, attention_bias false).
                     A rope_scaling "type" key is read as "rope_type" (the configs' BC rule).
  weights            modeling_utils.PreTrainedModel.from_pretrained: the safetensors files named by
                     the index's weight_map, or model.safetensors; tensors cast to the dtype asked
                     for (from_pretrained(torch_dtype=torch.float32) upcasts a bfloat16 file
                     exactly); with tie_word_embeddings lm_head.weight is model.embed_tokens.weight
                     (_tied_weights_keys), whether or not the file holds it.
  RMSNorm            LlamaRMSNorm / Qwen2RMSNorm / Qwen3RMSNorm.forward: the input upcast to
                     float32, x * rsqrt(mean(x^2) + eps), cast back to the input dtype, THEN
                     multiplied by the weight (`self.weight * hidden_states.to(input_dtype)`).
  rotary             modeling_rope_utils._compute_default_rope_parameters (inv_freq = 1 /
                     theta^(arange(0, dim, 2) / dim), float32, dim = head_dim *
                     partial_rotary_factor) and _compute_llama3_parameters (wavelength 2 pi /
                     inv_freq: shorter than original_max_position_embeddings / high_freq_factor
                     kept; longer than original / low_freq_factor divided by factor; between,
                     (1 - s) inv_freq / factor + s inv_freq with s = (original / wavelength -
                     low_freq_factor) / (high_freq_factor - low_freq_factor)), in float32 as those
                     functions compute it. LlamaRotaryEmbedding.forward: freqs = inv_freq x
                     position in float32, emb = cat(freqs, freqs), cos and sin times
                     attention_scaling (1.0 for both types) cast to the activations' dtype;
                     apply_rotary_pos_emb: q * cos + rotate_half(q) * sin, rotate_half(x) =
                     cat(-x[d/2:], x[:d/2]): dimension j turns with j + d/2, not with its
                     neighbour. Any other rope type is refused (ValueError).
  attention          LlamaAttention / Qwen2Attention / Qwen3Attention.forward and
                     eager_attention_forward: q, k, v projections (Qwen2: biases on q, k, v, none
                     on o; Llama and Qwen3: biases on all four when attention_bias), viewed as
                     [T, heads, head_dim]; Qwen3 applies q_norm and k_norm (RMSNorm over head_dim,
                     one weight shared by the heads) to that view before rotary; repeat_kv (key and
                     value head g serves query heads g * n_rep ... g * n_rep + n_rep - 1, the
                     expand + reshape of repeat_kv); scores q k^T * head_dim**-0.5; the causal mask
                     added as finfo(dtype).min above the diagonal (masking_utils' eager mask);
                     softmax(dtype=float32) cast back to the query's dtype: the attn_weights
                     returned with output_attentions, [heads, T, T] per layer; o_proj.
  MLP                LlamaMLP / Qwen2MLP / Qwen3MLP: down_proj(silu(gate_proj(x)) * up_proj(x))
                     (Llama: biases when mlp_bias).
  decoder layer      x + attn(input_layernorm(x)), then x + mlp(post_attention_layernorm(x));
                     the model: embed_tokens (no scale), the layers, norm, lm_head (no bias).
  generation         generation/utils.py GenerationMixin._sample (do_sample false) and
                     _beam_search, through hf_marian's loops with hf_gpt2's PromptAsDecoderStart
                     (the prompt's last token as the start, max_length lowered by the tokens before
                     it: the same computation as on the whole prompt). eos_token_id may be a list
                     (Llama 3's generation_config.json): EosTokenCriteria stops on any of them and
                     _beam_search keeps max(2, 1 + len(eos)) * num_beams candidates.

Every value is float32 by default, as from_pretrained(torch_dtype=torch.float32) computes it; the
`dtype` argument runs the model in another dtype with HF's casts in the same places (bfloat16:
what from_pretrained(torch_dtype=torch.bfloat16), or "auto" on a bfloat16 snapshot, runs). The
sliding window (use_sliding_window true) is refused: none of the modelled snapshots uses it.
"""

import json
import math
import os

import torch
import torch.nn.functional as F

import hf_gpt2
import hf_marian
from attnscope_ref import safetensors_io

ARCHITECTURES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM"}
INDEX = "model.safetensors.index.json"


# ----------------------------------------------------------------------------- config and weights

def read_config(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        return json.load(f)


def read_generation_config(folder):
    path = os.path.join(folder, "generation_config.json")
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_state_dict(folder):
    """{name: tensor in its stored dtype} from the files the index names, or model.safetensors."""
    index_path = os.path.join(folder, INDEX)
    if not os.path.isfile(index_path):
        return safetensors_io.load(os.path.join(folder, "model.safetensors"))[0]
    with open(index_path, encoding="utf-8") as f:
        weight_map = json.load(f)["weight_map"]
    state = {}
    for file_name in sorted(set(weight_map.values())):
        tensors, _ = safetensors_io.load(os.path.join(folder, file_name))
        for name, tensor in tensors.items():
            if weight_map.get(name) != file_name:
                raise ValueError(f"{folder}/{file_name}: {name} is not mapped to this file by {INDEX}")
            state[name] = tensor
    missing = sorted(set(weight_map) - set(state))
    if missing:
        raise ValueError(f"{folder}: {INDEX} names tensors no shard holds: {missing[:5]}")
    return state


def rope_type(config):
    scaling = config.get("rope_scaling")
    if not isinstance(scaling, dict):
        return "default"
    return scaling.get("rope_type", scaling.get("type"))


def head_dim_of(config):
    if config["model_type"] == "qwen3":
        return config.get("head_dim", 128)
    head_dim = config.get("head_dim")
    return head_dim if head_dim is not None else config["hidden_size"] // config["num_attention_heads"]


def default_inv_freq(config):
    """_compute_default_rope_parameters: (inv_freq float32 [dim / 2], attention_factor)."""
    base = config.get("rope_theta", 10000.0)
    dim = int(head_dim_of(config) * config.get("partial_rotary_factor", 1.0))
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim)), 1.0


def llama3_inv_freq(config):
    """_compute_llama3_parameters, step for step in float32."""
    inv_freq, attention_factor = default_inv_freq(config)
    scaling = config["rope_scaling"]
    factor = scaling["factor"]
    low_freq_factor = scaling["low_freq_factor"]
    high_freq_factor = scaling["high_freq_factor"]
    old_context_len = scaling["original_max_position_embeddings"]
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama), attention_factor


ROPE_INIT = {"default": default_inv_freq, "llama3": llama3_inv_freq}


def rope_parameters(config):
    kind = rope_type(config)
    if kind not in ROPE_INIT:
        raise ValueError(f"rope_scaling type {kind!r} is not read here: only default and llama3 rotary embeddings")
    return ROPE_INIT[kind](config)


# ----------------------------------------------------------------------------- model

class CausalLM:
    """LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM.forward in eval mode, batch of one,
    eager attention. The methods a mistake would change (rms_norm, rotate, repeat_kv) are separate
    so that models/reference/check_llama_sensitivity.py can replace them one at a time. `upcast` is
    the dtype HF's code computes the RMSNorm, the rotary tables and the softmax in (float32, whatever
    the activations' dtype); a check of float32 rounding raises it to float64 with the activations."""

    upcast = torch.float32

    def __init__(self, folder, dtype=torch.float32, state_dict=None):
        c = self.config = read_config(folder)
        kind = c.get("model_type")
        if kind not in ARCHITECTURES:
            raise ValueError(f"{folder}/config.json: model_type {kind!r} is none of {sorted(ARCHITECTURES)}")
        if c.get("architectures", [ARCHITECTURES[kind]]) != [ARCHITECTURES[kind]]:
            raise ValueError(f"{folder}/config.json: architectures {c['architectures']} is not [{ARCHITECTURES[kind]}]")
        if c.get("use_sliding_window", False):
            raise ValueError(f"{folder}/config.json: use_sliding_window is not read here")
        if c.get("hidden_act", "silu") != "silu":
            raise ValueError(f"{folder}/config.json: hidden_act {c['hidden_act']!r} is not silu")
        self.generation_config = read_generation_config(folder)
        self.kind, self.dtype = kind, dtype
        self.hidden_size = c["hidden_size"]
        self.num_layers = c["num_hidden_layers"]
        self.num_heads = c["num_attention_heads"]
        self.num_kv_heads = c.get("num_key_value_heads") or self.num_heads
        self.num_key_value_groups = self.num_heads // self.num_kv_heads
        self.head_dim = head_dim_of(c)
        self.scaling = self.head_dim ** -0.5
        self.eps = c.get("rms_norm_eps", 1e-6)
        # Qwen2Attention hard-codes biases on q, k, v; LlamaAttention and Qwen3Attention follow attention_bias.
        self.qkv_bias = kind == "qwen2" or c.get("attention_bias", False)
        self.o_bias = kind != "qwen2" and c.get("attention_bias", False)
        self.mlp_bias = kind == "llama" and c.get("mlp_bias", False)
        self.inv_freq, self.attention_scaling = rope_parameters(c)
        state = read_state_dict(folder) if state_dict is None else state_dict
        self.w = {name: t.to(dtype) for name, t in state.items()}
        self.check_names(folder)
        self.embed_tokens = self.w["model.embed_tokens.weight"]
        self.lm_head = self.embed_tokens if c.get("tie_word_embeddings", False) else self.w["lm_head.weight"]
        if self.embed_tokens.shape != (c["vocab_size"], self.hidden_size):
            raise ValueError(f"{folder}: model.embed_tokens.weight is {list(self.embed_tokens.shape)}, "
                             f"config says [{c['vocab_size']}, {self.hidden_size}]")

    def expected_names(self):
        names = {"model.embed_tokens.weight", "model.norm.weight"}
        for i in range(self.num_layers):
            p = f"model.layers.{i}."
            names |= {p + "input_layernorm.weight", p + "post_attention_layernorm.weight"}
            for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
                names.add(f"{p}self_attn.{proj}.weight")
                if (self.o_bias if proj == "o_proj" else self.qkv_bias):
                    names.add(f"{p}self_attn.{proj}.bias")
            if self.kind == "qwen3":
                names |= {p + "self_attn.q_norm.weight", p + "self_attn.k_norm.weight"}
            for proj in ("gate_proj", "up_proj", "down_proj"):
                names.add(f"{p}mlp.{proj}.weight")
                if self.mlp_bias:
                    names.add(f"{p}mlp.{proj}.bias")
        return names

    def check_names(self, folder):
        """Every tensor HF's model has is in the files and nothing else is, but lm_head.weight, which
        a tied model may or may not hold."""
        expected = self.expected_names()
        if not self.config.get("tie_word_embeddings", False):
            expected.add("lm_head.weight")
        found = set(self.w) - ({"lm_head.weight"} if self.config.get("tie_word_embeddings", False) else set())
        if found != expected:
            raise ValueError(f"{folder}: tensors missing {sorted(expected - found)[:5]}, "
                             f"unexpected {sorted(found - expected)[:5]}")

    # -- the pieces

    def linear(self, name, x, bias):
        return F.linear(x, self.w[name + ".weight"], self.w[name + ".bias"] if bias else None)

    def rms_norm(self, weight, hidden_states):
        """LlamaRMSNorm.forward."""
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(self.upcast)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.eps)
        return weight * hidden_states.to(input_dtype)

    def rotary_cos_sin(self, length):
        """LlamaRotaryEmbedding.forward for positions 0 .. length - 1: cos, sin [length, head_dim]."""
        position_ids = torch.arange(length).to(self.upcast)
        freqs = torch.outer(position_ids, self.inv_freq.to(self.upcast))
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.attention_scaling
        sin = emb.sin() * self.attention_scaling
        return cos.to(self.dtype), sin.to(self.dtype)

    @staticmethod
    def rotate_half(x):
        x1 = x[..., : x.shape[-1] // 2]
        x2 = x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    def rotate(self, x, cos, sin):
        """apply_rotary_pos_emb for one of q, k: x [heads, T, head_dim], cos/sin [T, head_dim]."""
        return (x * cos) + (self.rotate_half(x) * sin)

    def repeat_kv(self, hidden_states):
        """repeat_kv: [kv_heads, T, d] -> [heads, T, d], kv head g repeated for its n_rep query heads."""
        n_rep = self.num_key_value_groups
        kv_heads, slen, head_dim = hidden_states.shape
        if n_rep == 1:
            return hidden_states
        hidden_states = hidden_states[:, None, :, :].expand(kv_heads, n_rep, slen, head_dim)
        return hidden_states.reshape(kv_heads * n_rep, slen, head_dim)

    def attention(self, p, hidden_states, cos, sin):
        """(o_proj output [T, d], attn_weights [heads, T, T])."""
        T = hidden_states.shape[0]
        query = self.linear(p + "q_proj", hidden_states, self.qkv_bias).view(T, -1, self.head_dim)
        key = self.linear(p + "k_proj", hidden_states, self.qkv_bias).view(T, -1, self.head_dim)
        value = self.linear(p + "v_proj", hidden_states, self.qkv_bias).view(T, -1, self.head_dim)
        if self.kind == "qwen3":
            query = self.rms_norm(self.w[p + "q_norm.weight"], query)
            key = self.rms_norm(self.w[p + "k_norm.weight"], key)
        query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        query, key = self.rotate(query, cos, sin), self.rotate(key, cos, sin)
        key_states, value_states = self.repeat_kv(key), self.repeat_kv(value)
        attn_weights = torch.matmul(query, key_states.transpose(1, 2)) * self.scaling
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)
        mask = torch.zeros(T, T, dtype=attn_weights.dtype).masked_fill(causal, torch.finfo(attn_weights.dtype).min)
        attn_weights = attn_weights + mask
        attn_weights = F.softmax(attn_weights, dim=-1, dtype=self.upcast).to(query.dtype)
        attn_output = torch.matmul(attn_weights, value_states).transpose(0, 1).reshape(T, -1)
        return self.linear(p + "o_proj", attn_output, self.o_bias), attn_weights

    def mlp(self, p, x):
        gate = self.linear(p + "gate_proj", x, self.mlp_bias)
        return self.linear(p + "down_proj", F.silu(gate) * self.linear(p + "up_proj", x, self.mlp_bias), self.mlp_bias)

    def forward(self, input_ids):
        """(logits [T, V], attentions [L] of [heads, T, T], hidden_states [L + 1] of [T, d]), in self.dtype."""
        ids = torch.tensor(list(input_ids), dtype=torch.int64)
        if not (ids.numel() and int(ids.min()) >= 0 and int(ids.max()) < self.embed_tokens.shape[0]):
            raise ValueError(f"input ids must be 0 .. {self.embed_tokens.shape[0] - 1}, at least one")
        hidden_states = self.embed_tokens[ids]
        cos, sin = self.rotary_cos_sin(len(ids))
        all_hidden_states, attentions = [hidden_states], []
        for i in range(self.num_layers):
            p = f"model.layers.{i}."
            residual = hidden_states
            hidden_states = self.rms_norm(self.w[p + "input_layernorm.weight"], hidden_states)
            hidden_states, weights = self.attention(p + "self_attn.", hidden_states, cos, sin)
            hidden_states = residual + hidden_states
            residual = hidden_states
            hidden_states = self.rms_norm(self.w[p + "post_attention_layernorm.weight"], hidden_states)
            hidden_states = residual + self.mlp(p + "mlp.", hidden_states)
            attentions.append(weights)
            all_hidden_states.append(hidden_states)
        hidden_states = self.rms_norm(self.w["model.norm.weight"], hidden_states)
        return F.linear(hidden_states, self.lm_head), attentions, all_hidden_states

    def eos_token_id(self):
        """generate()'s eos: generation_config.json's, else config.json's (an id or a list)."""
        eos = self.generation_config.get("eos_token_id", self.config.get("eos_token_id"))
        if eos is None:
            raise ValueError("neither generation_config.json nor config.json names an eos_token_id")
        return eos


# ----------------------------------------------------------------------------- generation

class PromptAsStart(hf_gpt2.PromptAsDecoderStart):
    """hf_gpt2's adapter, remembering each sequence's last-position logits on the model: the loops
    recompute every prefix at every step, and a second search over the same model (the goldens'
    noise check) asks for the same sequences again. The numbers are the forward pass's."""

    def decode(self, decoder_input_ids, earlier_prompt):
        key = tuple(earlier_prompt) + tuple(decoder_input_ids)
        memo = self.model.__dict__.setdefault("next_logits_memo", {})
        if key not in memo:
            memo[key] = self.model.forward(key)[0][-1:].clone()
        return (memo[key],)


def greedy(model, input_ids, max_new_tokens):
    """generate(input_ids, do_sample=False, num_beams=1, max_new_tokens=...) with no logits processor
    (repetition_penalty 1.0): (new ids, sum of their logits as chosen)."""
    gen = hf_gpt2.GenerationConfig(model.eos_token_id(), input_ids, max_new_tokens)
    return hf_marian.greedy(PromptAsStart(model), gen, input_ids)


def beam_search(model, input_ids, max_new_tokens, num_beams, num_return_sequences=None, length_penalty=1.0,
                early_stopping=False):
    """generate(input_ids, do_sample=False, num_beams=..., max_new_tokens=..., length_penalty,
    early_stopping, num_return_sequences) with no logits processor: [(new ids, sequences_score)],
    best first."""
    gen = hf_gpt2.GenerationConfig(model.eos_token_id(), input_ids, max_new_tokens, num_beams, length_penalty,
                                   early_stopping)
    return hf_marian.beam_search(PromptAsStart(model), gen, input_ids, num_return_sequences or num_beams)
