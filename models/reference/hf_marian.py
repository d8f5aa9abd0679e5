"""A reading of Hugging Face's Marian (opus-mt) code for the goldens of tests/golden/hf/: the
tokenizer, the forward pass and greedy / beam generation, written from transformers' sources,
independently of attnscope's own reference (models/reference/attnscope_ref/).

Where each part comes from (transformers, current main):
  MarianTokenizer        models/marian/tokenization_marian.py (remove_language_code, _tokenize,
                         build_inputs_with_special_tokens, convert_tokens_to_string) and
                         PreTrainedTokenizer's tokenize / _decode (special tokens split off the text,
                         skip_special_tokens, clean_up_tokenization_spaces from tokenizer_config.json).
                         A piece missing from vocab.json is <unk>: `encoder.get(token, unk)` as 4.x
                         has it (main also tries the SentencePiece id of the piece first, which is
                         never negative, so the fallback there yields an unrelated id); output is
                         decoded with the target SentencePiece model, as 4.x does by default (main
                         switches to the source model when the vocabularies are joint).
  MarianModel            models/marian/modeling_marian.py: MarianSinusoidalPositionalEmbedding,
                         eager_attention_forward, MarianAttention, MarianEncoderLayer,
                         MarianDecoderLayer, MarianEncoder, MarianDecoder, MarianMTModel.forward.
  logits processors      generation/logits_process.py: NoBadWordsLogitsProcessor (a -inf sequence
                         bias), ForcedEOSTokenLogitsProcessor, LogitNormalization, in the order
                         GenerationMixin._get_logits_processor appends them.
  greedy                 generation/utils.py GenerationMixin._sample with do_sample=False.
  beam                   generation/utils.py GenerationMixin._beam_search (the vectorised search:
                         _get_top_k_continuations, _get_running_beams_for_next_iteration,
                         _update_finished_beams, _check_early_stop_heuristic,
                         _beam_search_has_unfinished_sequences).
  stopping criteria      generation/stopping_criteria.py MaxLengthCriteria (length >= max_length,
                         the decoder start counted) and EosTokenCriteria.

Every value is float32, as the PyTorch model computes it. The decoder recomputes the whole prefix
at each step instead of keeping a key/value cache; the numbers agree with the cached path to
float32 rounding, the decisions are the same.
"""

import json
import math
import os

import sentencepiece
import torch
import torch.nn.functional as F

from attnscope_ref import safetensors_io

SPIECE_UNDERLINE = "\u2581"


# ----------------------------------------------------------------------------- tokenizer

class MarianTokenizer:
    """tokenization_marian.MarianTokenizer for a joint vocabulary (separate_vocabs false)."""

    def __init__(self, folder):
        with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
            self.encoder = json.load(f)
        self.decoder = {v: k for k, v in self.encoder.items()}
        self.supported_language_codes = [k for k in self.encoder if k.startswith(">>") and k.endswith("<<")]
        self.spm_source = sentencepiece.SentencePieceProcessor(model_file=os.path.join(folder, "source.spm"))
        self.spm_target = sentencepiece.SentencePieceProcessor(model_file=os.path.join(folder, "target.spm"))
        config_path = os.path.join(folder, "tokenizer_config.json")
        with open(config_path, encoding="utf-8") as f:
            config = json.load(f)
        self.unk_token = config.get("unk_token", "<unk>")
        self.eos_token = config.get("eos_token", "</s>")
        self.pad_token = config.get("pad_token", "<pad>")
        if self.unk_token not in self.encoder:
            raise KeyError(f"{config_path}: the unk_token {self.unk_token!r} is not in vocab.json")
        self.clean_up_tokenization_spaces = config.get("clean_up_tokenization_spaces", False)
        self.all_special_tokens = [self.eos_token, self.unk_token, self.pad_token]
        self.all_special_ids = [self.encoder[t] for t in self.all_special_tokens]
        self.eos_token_id = self.encoder[self.eos_token]

    def remove_language_code(self, text):
        """MarianTokenizer.remove_language_code: one leading >>xx<< code, kept whole."""
        code = []
        if text.startswith(">>"):
            end_loc = text.find("<<")
            if end_loc != -1:
                code.append(text[: end_loc + 2])
                text = text[end_loc + 2:]
        return code, text

    def _tokenize(self, text, spm):
        code, text = self.remove_language_code(text)
        pieces = spm.encode(text, out_type=str)
        return code + pieces

    def tokenize(self, text, spm):
        """PreTrainedTokenizer.tokenize: special tokens written in the text are split off first."""
        tokens, rest = [], text
        while rest:
            hits = [(rest.find(t), t) for t in self.all_special_tokens if rest.find(t) != -1]
            if not hits:
                tokens += self._tokenize(rest, spm)
                break
            at, token = min(hits)
            if at:
                tokens += self._tokenize(rest[:at], spm)
            tokens.append(token)
            rest = rest[at + len(token):]
        return tokens

    def _convert_token_to_id(self, token):
        return self.encoder.get(token, self.encoder[self.unk_token])

    def encode(self, text, target=False):
        """(pieces, ids) of `text` with </s> appended (build_inputs_with_special_tokens);
        target=True is `text_target` (the target SentencePiece model, _switch_to_target_mode)."""
        pieces = self.tokenize(text, self.spm_target if target else self.spm_source)
        ids = [self._convert_token_to_id(p) for p in pieces] + [self.eos_token_id]
        return pieces + [self.eos_token], ids

    def unknown_pieces(self, pieces):
        return [p for p in pieces if p not in self.encoder]

    def convert_tokens_to_string(self, tokens):
        """MarianTokenizer.convert_tokens_to_string with the target model."""
        sp_model = self.spm_target
        current_sub_tokens, out_string = [], ""
        for token in tokens:
            if token in self.all_special_tokens:
                out_string += sp_model.decode_pieces(current_sub_tokens) + token + " "
                current_sub_tokens = []
            else:
                current_sub_tokens.append(token)
        out_string += sp_model.decode_pieces(current_sub_tokens)
        out_string = out_string.replace(SPIECE_UNDERLINE, " ")
        return out_string.strip()

    def decode(self, ids, skip_special_tokens=True):
        """PreTrainedTokenizer._decode (no added tokens; clean-up as tokenizer_config.json says)."""
        tokens = [self.decoder[i] for i in ids if not (skip_special_tokens and i in self.all_special_ids)]
        text = self.convert_tokens_to_string(tokens)
        if self.clean_up_tokenization_spaces:
            for a, b in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
                         (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")):
                text = text.replace(a, b)
        return text


# ----------------------------------------------------------------------------- model

def sinusoidal_positions(n_pos, dim, halves=True):
    """MarianSinusoidalPositionalEmbedding._init_weight: float64 angles, cast once to float32.
    halves=False gives the interleaved (XLM / Vaswani) layout, used to show the goldens tell them apart."""
    position_enc = torch.tensor(
        [[pos / math.pow(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)],
        dtype=torch.float64)
    out = torch.empty(n_pos, dim, dtype=torch.float32)
    if halves:
        sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
        out[:, 0:sentinel] = torch.sin(position_enc[:, 0::2]).float()
        out[:, sentinel:] = torch.cos(position_enc[:, 1::2]).float()
    else:
        out[:, 0::2] = torch.sin(position_enc[:, 0::2]).float()
        out[:, 1::2] = torch.cos(position_enc[:, 1::2]).float()
    return out


ACT2FN = {"swish": F.silu, "silu": F.silu, "gelu": F.gelu, "relu": F.relu}


class MarianMTModel:
    """The forward pass of MarianMTModel in eval mode (no dropout), batch of one."""

    CONFIG_FIELDS = ("d_model", "scale_embedding", "activation_function", "encoder_layers", "decoder_layers",
                     "encoder_attention_heads", "decoder_attention_heads", "max_position_embeddings")

    def __init__(self, folder, halves=True):
        config_path = os.path.join(folder, "config.json")
        with open(config_path, encoding="utf-8") as f:
            self.config = json.load(f)
        c = self.config
        if c.get("model_type") != "marian":
            raise ValueError(f"{config_path}: model_type is {c.get('model_type')!r}, not 'marian'")
        for field in self.CONFIG_FIELDS:
            if field not in c:
                raise ValueError(f"{config_path}: field {field!r} is missing")
        if c["activation_function"] not in ACT2FN:
            raise ValueError(f"{config_path}: activation_function {c['activation_function']!r} is not one of "
                             f"{sorted(ACT2FN)}")
        weights_path = os.path.join(folder, "model.safetensors")
        tensors, _ = safetensors_io.load(weights_path)
        self.w = {k: v.float() for k, v in tensors.items()}
        for name in ("model.shared.weight", "final_logits_bias"):
            if name not in self.w:
                raise ValueError(f"{weights_path}: tensor {name!r} is missing")
        self.d_model = c["d_model"]
        self.embed_scale = math.sqrt(self.d_model) if c["scale_embedding"] else 1.0
        self.activation_fn = ACT2FN[c["activation_function"]]
        # MarianModel.__init__: with share_encoder_decoder_embeddings the encoder, the decoder and
        # (tied) lm_head all use model.shared.
        if not c.get("share_encoder_decoder_embeddings", True):
            raise ValueError(f"{folder}/config.json: only share_encoder_decoder_embeddings true is read here")
        self.shared = self.w["model.shared.weight"]
        self.lm_head = self.w.get("lm_head.weight", self.shared)
        self.final_logits_bias = self.w["final_logits_bias"]
        self.embed_positions = sinusoidal_positions(c["max_position_embeddings"], self.d_model, halves)

    def tensor(self, name):
        if name not in self.w:
            raise ValueError(f"model.safetensors: tensor {name!r} is missing")
        return self.w[name]

    def linear(self, name, x):
        return F.linear(x, self.tensor(name + ".weight"), self.w.get(name + ".bias"))

    def layer_norm(self, name, x):
        return F.layer_norm(x, (self.d_model,), self.tensor(name + ".weight"), self.tensor(name + ".bias"), 1e-5)

    def attention(self, name, hidden_states, key_value_states, heads, causal):
        """MarianAttention.forward + eager_attention_forward; returns (out_proj output, weights [H, T, S])."""
        tgt_len = hidden_states.shape[0]
        current = hidden_states if key_value_states is None else key_value_states
        src_len = current.shape[0]
        head_dim = self.d_model // heads
        scaling = head_dim ** -0.5
        query = self.linear(name + ".q_proj", hidden_states).view(tgt_len, heads, head_dim).transpose(0, 1)
        key = self.linear(name + ".k_proj", current).view(src_len, heads, head_dim).transpose(0, 1)
        value = self.linear(name + ".v_proj", current).view(src_len, heads, head_dim).transpose(0, 1)
        attn_weights = torch.matmul(query, key.transpose(1, 2)) * scaling
        if causal:
            # _prepare_4d_causal_attention_mask_with_cache_position: finfo.min above the diagonal.
            mask = torch.triu(torch.full((tgt_len, src_len), torch.finfo(torch.float32).min), diagonal=1)
            attn_weights = attn_weights + mask
        attn_weights = F.softmax(attn_weights, dim=-1)
        attn_output = torch.matmul(attn_weights, value).transpose(0, 1).reshape(tgt_len, self.d_model)
        return self.linear(name + ".out_proj", attn_output), attn_weights

    def encode(self, input_ids):
        """MarianEncoder.forward: (last_hidden_state [S, d], attentions [L][H, S, S])."""
        c = self.config
        ids = torch.tensor(input_ids)
        inputs_embeds = self.shared[ids] * self.embed_scale
        hidden_states = inputs_embeds + self.embed_positions[: len(input_ids)]
        attentions = []
        for n in range(c["encoder_layers"]):
            p = f"model.encoder.layers.{n}"
            residual = hidden_states
            hidden_states, weights = self.attention(p + ".self_attn", hidden_states, None,
                                                    c["encoder_attention_heads"], False)
            hidden_states = self.layer_norm(p + ".self_attn_layer_norm", residual + hidden_states)
            residual = hidden_states
            hidden_states = self.activation_fn(self.linear(p + ".fc1", hidden_states))
            hidden_states = self.linear(p + ".fc2", hidden_states)
            hidden_states = self.layer_norm(p + ".final_layer_norm", residual + hidden_states)
            attentions.append(weights)
        return hidden_states, attentions

    def decode(self, decoder_input_ids, encoder_hidden_states):
        """MarianDecoder.forward + lm_head + final_logits_bias: (logits [T, V], self [L][H,T,T], cross [L][H,T,S])."""
        c = self.config
        ids = torch.tensor(decoder_input_ids)
        inputs_embeds = self.shared[ids] * self.embed_scale
        hidden_states = inputs_embeds + self.embed_positions[: len(decoder_input_ids)]
        self_attns, cross_attns = [], []
        for n in range(c["decoder_layers"]):
            p = f"model.decoder.layers.{n}"
            residual = hidden_states
            hidden_states, self_w = self.attention(p + ".self_attn", hidden_states, None,
                                                   c["decoder_attention_heads"], True)
            hidden_states = self.layer_norm(p + ".self_attn_layer_norm", residual + hidden_states)
            residual = hidden_states
            hidden_states, cross_w = self.attention(p + ".encoder_attn", hidden_states, encoder_hidden_states,
                                                    c["decoder_attention_heads"], False)
            hidden_states = self.layer_norm(p + ".encoder_attn_layer_norm", residual + hidden_states)
            residual = hidden_states
            hidden_states = self.activation_fn(self.linear(p + ".fc1", hidden_states))
            hidden_states = self.linear(p + ".fc2", hidden_states)
            hidden_states = self.layer_norm(p + ".final_layer_norm", residual + hidden_states)
            self_attns.append(self_w)
            cross_attns.append(cross_w)
        logits = F.linear(hidden_states, self.lm_head) + self.final_logits_bias
        return logits, self_attns, cross_attns


# ----------------------------------------------------------------------------- generation

class GenerationConfig:
    """The fields of generation_config.json that Marian generation reads, with GenerationConfig's
    defaults (length_penalty 1.0, early_stopping False, renormalize_logits False)."""

    def __init__(self, folder, **overrides):
        with open(os.path.join(folder, "generation_config.json"), encoding="utf-8") as f:
            g = json.load(f)
        g.update(overrides)
        self.decoder_start_token_id = g["decoder_start_token_id"]
        self.eos_token_id = g["eos_token_id"]
        self.pad_token_id = g["pad_token_id"]
        self.bad_words_ids = g.get("bad_words_ids")
        self.forced_eos_token_id = g.get("forced_eos_token_id")
        self.renormalize_logits = g.get("renormalize_logits", False)
        self.num_beams = g.get("num_beams", 1)
        self.length_penalty = g.get("length_penalty", 1.0)
        self.early_stopping = g.get("early_stopping", False)
        # GenerationMixin._prepare_generated_length: max_new_tokens counts after the decoder start.
        if "max_new_tokens" in g:
            self.max_length = g["max_new_tokens"] + 1
        else:
            self.max_length = g.get("max_length", 20)

    def as_json(self):
        return {"decoder_start_token_id": self.decoder_start_token_id, "eos_token_id": self.eos_token_id,
                "pad_token_id": self.pad_token_id, "bad_words_ids": self.bad_words_ids,
                "forced_eos_token_id": self.forced_eos_token_id, "renormalize_logits": self.renormalize_logits,
                "num_beams": self.num_beams, "length_penalty": self.length_penalty,
                "early_stopping": self.early_stopping, "max_length": self.max_length}


def logits_processor(gen, input_length, scores):
    """The processors _get_logits_processor builds for these settings, applied in its order to
    scores [n, V] of sequences of `input_length` tokens (decoder start included)."""
    if gen.bad_words_ids:
        # NoBadWordsLogitsProcessor: single-token bad words get a static -inf bias.
        for bad in gen.bad_words_ids:
            if len(bad) != 1:
                raise ValueError("only single-token bad_words_ids are read here")
        bias = torch.zeros(scores.shape[-1])
        bias[[bad[0] for bad in gen.bad_words_ids]] = -math.inf
        scores = scores + bias
    if gen.forced_eos_token_id is not None and input_length == gen.max_length - 1:
        # ForcedEOSTokenLogitsProcessor
        scores = torch.full_like(scores, -math.inf)
        scores[:, gen.forced_eos_token_id] = 0
    if gen.renormalize_logits:
        scores = scores.log_softmax(dim=-1)  # LogitNormalization
    return scores


def eos_token_ids(gen):
    """generation_config's eos_token_id as the list generate() makes of it (an int or a list in the file)."""
    eos = gen.eos_token_id
    return list(eos) if isinstance(eos, (list, tuple)) else [eos]


def stopping_criteria(gen, sequences):
    """MaxLengthCriteria | EosTokenCriteria (the last token is any of the eos ids) over sequences
    [n, length]: bool [n]."""
    is_done = torch.full((sequences.shape[0],), sequences.shape[-1] >= gen.max_length)
    return is_done | torch.isin(sequences[:, -1], torch.tensor(eos_token_ids(gen)))


def next_logits(model, encoder_hidden_states, sequences):
    """Last-position logits [n, V] for each decoder sequence (decoder start included)."""
    return torch.stack([model.decode(seq.tolist(), encoder_hidden_states)[0][-1] for seq in sequences])


def greedy(model, gen, input_ids):
    """GenerationMixin._sample, do_sample False: (generated ids after the start, sum of chosen scores)."""
    encoder_hidden_states, _ = model.encode(input_ids)
    sequence = torch.tensor([[gen.decoder_start_token_id]])
    score = torch.zeros((), dtype=torch.float32)
    while True:
        next_token_logits = next_logits(model, encoder_hidden_states, sequence)
        next_token_scores = logits_processor(gen, sequence.shape[-1], next_token_logits)
        next_tokens = torch.argmax(next_token_scores, dim=-1)
        score = score + next_token_scores[0, next_tokens[0]]
        sequence = torch.cat([sequence, next_tokens[:, None]], dim=-1)
        if stopping_criteria(gen, sequence)[0]:
            break
    return sequence[0, 1:].tolist(), score


def beam_search(model, gen, input_ids, num_return_sequences):
    """GenerationMixin._beam_search for a batch of one: [(ids after the start, sequences_score)], best first."""
    encoder_hidden_states, _ = model.encode(input_ids)
    num_beams, max_length = gen.num_beams, gen.max_length
    length_penalty, early_stopping = gen.length_penalty, gen.early_stopping
    vocab_size = model.lm_head.shape[0]
    beams_to_keep = max(2, 1 + len(eos_token_ids(gen))) * num_beams
    top_num_beam_mask = torch.cat((torch.ones(num_beams, dtype=torch.bool),
                                   torch.zeros(beams_to_keep - num_beams, dtype=torch.bool)))
    cur_len = decoder_prompt_len = 1
    fill = gen.pad_token_id if gen.pad_token_id is not None else eos_token_ids(gen)[0]
    running_sequences = torch.full((num_beams, max_length), fill, dtype=torch.int64)
    running_sequences[:, 0] = gen.decoder_start_token_id
    sequences = running_sequences.clone()
    running_beam_scores = torch.zeros(num_beams)
    running_beam_scores[1:] = -1e9
    beam_scores = torch.full((num_beams,), -1e9)
    is_sent_finished = torch.zeros(num_beams, dtype=torch.bool)
    is_early_stop_heuristic_unsatisfied = True
    # Generated length of each finished sequence: what the filled part of HF's beam_indices counts.
    finished_lengths = torch.zeros(num_beams, dtype=torch.int64)

    while True:
        logits = next_logits(model, encoder_hidden_states, running_sequences[:, :cur_len])
        log_probs = F.log_softmax(logits, dim=-1)
        log_probs = logits_processor(gen, cur_len, log_probs)
        log_probs = log_probs + running_beam_scores[:, None]
        log_probs = log_probs.reshape(num_beams * vocab_size)

        # _get_top_k_continuations
        topk_log_probs, topk_indices = torch.topk(log_probs, k=beams_to_keep)
        topk_current_beam_indices = topk_indices // vocab_size
        topk_running_sequences = running_sequences[topk_current_beam_indices].clone()
        topk_running_sequences[:, cur_len] = topk_indices % vocab_size
        topk_lengths = torch.full((beams_to_keep,), cur_len + 1 - decoder_prompt_len)

        next_token_hits_stopping_criteria = stopping_criteria(gen, topk_running_sequences[:, : cur_len + 1])

        # _get_running_beams_for_next_iteration
        topk_running_log_probs = topk_log_probs + next_token_hits_stopping_criteria.float() * -1.0e9
        next_topk_indices = torch.topk(topk_running_log_probs, k=num_beams)[1]
        running_sequences = topk_running_sequences[next_topk_indices]
        running_beam_scores = topk_running_log_probs[next_topk_indices]

        # _update_finished_beams
        did_top_num_beams_just_finished = next_token_hits_stopping_criteria & top_num_beam_mask
        finished_scores = topk_log_probs / ((cur_len + 1 - decoder_prompt_len) ** length_penalty)
        beams_are_full = bool(torch.all(is_sent_finished)) and early_stopping is True
        finished_scores = finished_scores + float(beams_are_full) * -1.0e9
        finished_scores = finished_scores + float(not is_early_stop_heuristic_unsatisfied) * -1.0e9
        finished_scores = finished_scores + (~did_top_num_beams_just_finished).float() * -1.0e9
        merged_sequences = torch.cat((sequences, topk_running_sequences))
        merged_scores = torch.cat((beam_scores, finished_scores))
        merged_lengths = torch.cat((finished_lengths, topk_lengths))
        merged_is_sent_finished = torch.cat((is_sent_finished, did_top_num_beams_just_finished))
        topk_merged_indices = torch.topk(merged_scores, k=num_beams)[1]
        sequences = merged_sequences[topk_merged_indices]
        beam_scores = merged_scores[topk_merged_indices]
        finished_lengths = merged_lengths[topk_merged_indices]
        is_sent_finished = merged_is_sent_finished[topk_merged_indices]

        cur_len += 1
        # _check_early_stop_heuristic
        if early_stopping == "never" and length_penalty > 0.0:
            best_hypothetical_length = max_length - decoder_prompt_len
        else:
            best_hypothetical_length = cur_len - decoder_prompt_len
        best_possible_running_score = running_beam_scores[0] / (best_hypothetical_length ** length_penalty)
        worst_finished_score = torch.where(is_sent_finished, torch.min(beam_scores), torch.tensor(-1.0e9))
        is_early_stop_heuristic_unsatisfied = is_early_stop_heuristic_unsatisfied and bool(
            torch.any(best_possible_running_score > worst_finished_score))
        # _beam_search_has_unfinished_sequences
        exists_open_beam = not (bool(torch.all(is_sent_finished)) and early_stopping is True)
        valid_continuations = not bool(torch.all(next_token_hits_stopping_criteria))
        if not (is_early_stop_heuristic_unsatisfied and exists_open_beam and valid_continuations):
            break

    results = []
    for n in range(num_return_sequences):
        length = int(finished_lengths[n])
        results.append((sequences[n, decoder_prompt_len: decoder_prompt_len + length].tolist(), beam_scores[n]))
    return results
