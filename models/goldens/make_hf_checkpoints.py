#!/usr/bin/env python3
"""Write two small Marian (opus-mt) checkpoints in the exact Hugging Face snapshot layout under
tests/data/hf/ (deterministic; run with /usr/bin/python3, which has torch and sentencepiece).

  opus-mt-en-de-tiny/   English -> German, 4 heads
  opus-mt-mul-en-tiny/  French / German / Spanish -> English, 8 heads, >>xx<< language codes

Each folder holds what `MarianMTModel.save_pretrained` + `MarianTokenizer.save_pretrained` give
(config.json, generation_config.json, model.safetensors, source.spm, target.spm, vocab.json,
tokenizer_config.json, special_tokens_map.json). The config carries the field set of
Helsinki-NLP/opus-mt-en-de's config.json, scaled down (2 + 2 layers, d_model 64, FFN 256: TINY); the
generation config is that of the current opus-mt snapshots (num_beams 4, max_length 512,
bad_words_ids [[pad]], forced_eos_token_id 0, renormalize_logits true).

Tensors (F32, Hugging Face state-dict names): `MarianMTModel.save_pretrained` keeps one name of a
tied group, dropping those listed in `_tied_weights_keys` (model.encoder.embed_tokens.weight,
model.decoder.embed_tokens.weight, lm_head.weight), so the shared embedding is stored once as
model.shared.weight and the output projection is tied to it. Both embed_positions tables are
stored, as in the published opus-mt files (converted from their pytorch_model.bin); a fresh
save_pretrained drops them (`_keys_to_ignore_on_save`) and a loader rebuilds them from
MarianSinusoidalPositionalEmbedding._init_weight. The pad row of the shared embedding is zero
(MarianPreTrainedModel._init_weights zeroes padding_idx).

The SentencePiece models are unigram models trained by the library on captions generated from
a small grammar (below) plus the 40 committed Multi30k sentences of tests/data/multi30k/, with
nmt_nfkc normalisation as Marian's have. vocab.json is
</s> = 0, <unk> = 1, the language codes, the union of both models' pieces, <pad> last; a few
pieces are left out of vocab.json on purpose (MarianTokenizer maps them to <unk>).

Weights are random (standard deviations per spec below), larger than Marian's init_std so that
attention is not uniform; the feed-forward outputs dominate the value / output projections, so
the decoder does not simply copy its input token through the tied embedding; the final_logits_bias
favours </s> enough for some translations to end before the length limit and gives the pad (whose
embedding row, hence its lm_head row, is zero) a logit that often wins before bad_words_ids
removes it.
"""

import argparse
import io
import json
import math
import os
import sys

import sentencepiece as spm
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models", "reference"))

from attnscope_ref import safetensors_io  # noqa: E402

OUT = os.path.join(ROOT, "tests", "data", "hf")
MULTI30K = os.path.join(ROOT, "tests", "data", "multi30k", "val.first40.")

# ----------------------------------------------------------------------------- corpora

EN = {
    "subjects": ["a man", "a woman", "the dog", "two children", "a young girl", "the old man", "a boy",
                 "three women", "the cat", "a tall worker", "my brother", "the teacher"],
    "verbs": ["is eating", "is reading", "is riding", "is holding", "is playing with", "is looking at",
              "is carrying", "is painting", "is throwing", "is washing", "is buying", "is selling"],
    "objects": ["an apple", "a book", "a red bicycle", "a small ball", "the newspaper", "a guitar",
                "a large box", "a brown horse", "a blue kite", "some bread", "a fox", "the window"],
    "places": ["in the park", "on the street", "near the river", "at the beach", "in the kitchen",
               "next to the station", "under a tree", "in front of the house"],
}
DE = {
    "subjects": ["ein Mann", "eine Frau", "der Hund", "zwei Kinder", "ein junges Mädchen", "der alte Mann",
                 "ein Junge", "drei Frauen", "die Katze", "ein großer Arbeiter", "mein Bruder", "der Lehrer"],
    "verbs": ["isst", "liest", "reitet", "hält", "spielt mit", "schaut auf", "trägt", "malt", "wirft",
              "wäscht", "kauft", "verkauft"],
    "objects": ["einen Apfel", "ein Buch", "ein rotes Fahrrad", "einen kleinen Ball", "die Zeitung",
                "eine Gitarre", "eine große Kiste", "ein braunes Pferd", "einen blauen Drachen", "etwas Brot",
                "einen Fuchs", "das Fenster"],
    "places": ["im Park", "auf der Straße", "am Fluss", "am Strand", "in der Küche", "neben dem Bahnhof",
               "unter einem Baum", "vor dem Haus"],
}
FR = {
    "subjects": ["un homme", "une femme", "le chien", "deux enfants", "une jeune fille", "le vieil homme",
                 "un garçon", "trois femmes", "le chat", "mon frère"],
    "verbs": ["mange", "lit", "regarde", "porte", "lance", "lave", "achète", "vend", "peint", "tient"],
    "objects": ["une pomme", "un livre", "un vélo rouge", "une petite balle", "le journal", "une guitare",
                "une grande boîte", "un cheval brun", "du pain", "la fenêtre"],
    "places": ["dans le parc", "dans la rue", "près de la rivière", "à la plage", "dans la cuisine",
               "devant la maison"],
}
ES = {
    "subjects": ["un hombre", "una mujer", "el perro", "dos niños", "una niña", "el anciano", "un chico",
                 "tres mujeres", "el gato", "mi hermano"],
    "verbs": ["come", "lee", "mira", "lleva", "lanza", "lava", "compra", "vende", "pinta", "sostiene"],
    "objects": ["una manzana", "un libro", "una bicicleta roja", "una pelota pequeña", "el periódico",
                "una guitarra", "una caja grande", "un caballo marrón", "pan", "la ventana"],
    "places": ["en el parque", "en la calle", "cerca del río", "en la playa", "en la cocina",
               "delante de la casa", "por la mañana"],
}


def captions(grammar, count, offset):
    """`count` sentences of the grammar, walking its combinations by fixed strides (deterministic)."""
    s, v, o, p = (grammar[k] for k in ("subjects", "verbs", "objects", "places"))
    lines = []
    for n in range(offset, offset + count):
        sentence = f"{s[n % len(s)]} {v[(n * 7 + 3) % len(v)]} {o[(n * 5 + 1) % len(o)]}"
        if n % 3:
            sentence += " " + p[(n * 11 + 2) % len(p)]
        sentence = sentence[0].upper() + sentence[1:] + ("." if n % 4 else " !" if n % 8 else "?")
        lines.append(sentence)
    return lines


def committed_sentences(lang):
    """The 40 Multi30k validation sentences committed under tests/data/multi30k/."""
    with open(MULTI30K + lang, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def train_sentencepiece(lines, vocab_size):
    """A unigram .model trained on `lines`, as bytes (no file path enters the model's trainer spec)."""
    writer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=writer, model_type="unigram", vocab_size=vocab_size,
        hard_vocab_limit=False, normalization_rule_name="nmt_nfkc", character_coverage=1.0, num_threads=1,
        seed_sentencepiece_size=20000, shuffle_input_sentence=False, minloglevel=2)
    return writer.getvalue()


def model_pieces(model_bytes):
    sp = spm.SentencePieceProcessor(model_proto=model_bytes)
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())
            if not (sp.is_control(i) or sp.is_unknown(i))]


# ----------------------------------------------------------------------------- snapshots

SPECS = {
    "opus-mt-en-de-tiny": {
        "source": (EN, 0), "target": (DE, 0), "source_lang": "en", "target_lang": "de",
        "source_extra": ["en"], "target_extra": ["de"],
        "language_codes": [], "left_out": lambda piece: "x" in piece,
        "heads": 4, "seed": 20240611, "eos_bias": 5.0, "pad_bias": 7.0, "logit_gain": 3.0,
        "std": {"embedding": 0.1, "query_key": 0.14, "value_output": 0.08, "fc1": 0.15, "fc2": 0.25},
    },
    "opus-mt-mul-en-tiny": {
        "source": ((FR, 0), (ES, 0), (DE, 200)), "target": (EN, 0), "source_lang": "mul", "target_lang": "en",
        "source_extra": ["de"], "target_extra": ["en"],
        "language_codes": [">>deu<<", ">>fra<<", ">>spa<<", ">>eng<<"], "left_out": lambda piece: "ñ" in piece,
        "heads": 8, "seed": 20240612, "eos_bias": 5.5, "pad_bias": 7.5, "logit_gain": 3.0,
        "std": {"embedding": 0.1, "query_key": 0.18, "value_output": 0.08, "fc1": 0.15, "fc2": 0.25},
    },
}
LINES = 300
SPM_VOCAB = 260
# The tiny snapshots' dimensions; make_hf_real_size.py passes opus-mt-en-de's own.
TINY = {"d_model": 64, "ffn": 256, "layers": 2, "max_positions": 512}


def make_vocab(src_model, tgt_model, language_codes, left_out):
    pieces = ["</s>", "<unk>"] + language_codes
    for piece in model_pieces(src_model) + model_pieces(tgt_model):
        if piece not in pieces and not left_out(piece):
            pieces.append(piece)
    pieces.append("<pad>")
    return {piece: i for i, piece in enumerate(pieces)}


def config_json(name, vocab_size, heads, pad, sizes=TINY):
    """The field set of Helsinki-NLP/opus-mt-en-de's config.json, at `sizes`."""
    return {
        "_name_or_path": "Helsinki-NLP/" + name.removesuffix("-tiny"),
        "_num_labels": 3,
        "activation_dropout": 0.0,
        "activation_function": "swish",
        "add_bias_logits": False,
        "add_final_layer_norm": False,
        "architectures": ["MarianMTModel"],
        "attention_dropout": 0.0,
        "bad_words_ids": [[pad]],
        "bos_token_id": 0,
        "classif_dropout": 0.0,
        "classifier_dropout": 0.0,
        "d_model": sizes["d_model"],
        "decoder_attention_heads": heads,
        "decoder_ffn_dim": sizes["ffn"],
        "decoder_layerdrop": 0.0,
        "decoder_layers": sizes["layers"],
        "decoder_start_token_id": pad,
        "decoder_vocab_size": vocab_size,
        "dropout": 0.1,
        "encoder_attention_heads": heads,
        "encoder_ffn_dim": sizes["ffn"],
        "encoder_layerdrop": 0.0,
        "encoder_layers": sizes["layers"],
        "eos_token_id": 0,
        "forced_eos_token_id": 0,
        "gradient_checkpointing": False,
        "id2label": {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"},
        "init_std": 0.02,
        "is_encoder_decoder": True,
        "label2id": {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2},
        "max_length": 512,
        "max_position_embeddings": sizes["max_positions"],
        "model_type": "marian",
        "normalize_before": False,
        "normalize_embedding": False,
        "num_beams": 4,
        "num_hidden_layers": sizes["layers"],
        "pad_token_id": pad,
        "scale_embedding": True,
        "share_encoder_decoder_embeddings": True,
        "static_position_embeddings": True,
        "torch_dtype": "float32",
        "transformers_version": "4.22.0.dev0",
        "use_cache": True,
        "vocab_size": vocab_size,
    }


def generation_config_json(pad):
    """generation_config.json as the current opus-mt snapshots carry it."""
    return {
        "bad_words_ids": [[pad]],
        "bos_token_id": 0,
        "decoder_start_token_id": pad,
        "eos_token_id": 0,
        "forced_eos_token_id": 0,
        "max_length": 512,
        "num_beams": 4,
        "pad_token_id": pad,
        "renormalize_logits": True,
        "transformers_version": "4.32.0.dev0",
    }


def sinusoidal_table(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding._init_weight: sin in the first half, cos in the second."""
    table = torch.empty(n_pos, dim, dtype=torch.float64)
    for pos in range(n_pos):
        for j in range(dim // 2):
            angle = pos / math.pow(10000, 2 * j / dim)
            table[pos, j] = math.sin(angle)
            table[pos, dim // 2 + j] = math.cos(angle)
    return table.float()


def random_state_dict(vocab_size, pad, eos, spec, sizes=TINY):
    g = torch.Generator().manual_seed(spec["seed"])
    d_model, ffn_dim, layers = sizes["d_model"], sizes["ffn"], sizes["layers"]

    def normal(*shape, std):
        return torch.randn(*shape, generator=g) * std

    def linear(prefix, n_out, n_in, std):
        return {f"{prefix}.weight": normal(n_out, n_in, std=std), f"{prefix}.bias": normal(n_out, std=0.05)}

    def layer_norm(prefix):
        return {f"{prefix}.weight": 1.0 + normal(d_model, std=0.1), f"{prefix}.bias": normal(d_model, std=0.05)}

    def attention(prefix):
        tensors = {}
        for name, kind in (("q_proj", "query_key"), ("k_proj", "query_key"), ("v_proj", "value_output"),
                           ("out_proj", "value_output")):
            std = spec["std"][kind]
            tensors.update(linear(f"{prefix}.{name}", d_model, d_model, std))
        return tensors

    def ffn(prefix):
        return {**linear(f"{prefix}.fc1", ffn_dim, d_model, spec["std"]["fc1"]),
                **linear(f"{prefix}.fc2", d_model, ffn_dim, spec["std"]["fc2"])}

    shared = normal(vocab_size, d_model, std=spec["std"]["embedding"])
    shared[pad] = 0.0
    tensors = {"model.shared.weight": shared}
    positions = sinusoidal_table(sizes["max_positions"], d_model)
    for stack in ("encoder", "decoder"):
        tensors[f"model.{stack}.embed_positions.weight"] = positions.clone()
        for n in range(layers):
            prefix = f"model.{stack}.layers.{n}"
            tensors.update(attention(f"{prefix}.self_attn"))
            tensors.update(layer_norm(f"{prefix}.self_attn_layer_norm"))
            if stack == "decoder":
                tensors.update(attention(f"{prefix}.encoder_attn"))
                tensors.update(layer_norm(f"{prefix}.encoder_attn_layer_norm"))
            tensors.update(ffn(prefix))
            tensors.update(layer_norm(f"{prefix}.final_layer_norm"))
    # The last decoder LayerNorm's gain sets the scale of the logits (lm_head is the small shared
    # embedding): large enough that the output depends on the source, not only on the bias.
    last = f"model.decoder.layers.{layers - 1}.final_layer_norm"
    tensors[last + ".weight"] *= spec["logit_gain"]
    tensors[last + ".bias"] *= spec["logit_gain"]
    bias = normal(1, vocab_size, std=0.5)
    bias[0, eos] = spec["eos_bias"]
    bias[0, pad] = spec["pad_bias"]
    if "filler_ids" in spec:  # pieces no tokenizer produces (a padded vocabulary's): rarely generated
        bias[0, spec["filler_ids"]] = spec["filler_bias"]
    tensors["final_logits_bias"] = bias
    return tensors


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2)
        f.write("\n")


def write_snapshot(name, spec):
    sources = spec["source"] if isinstance(spec["source"][0], tuple) else (spec["source"],)
    src_lines = [line for grammar, offset in sources for line in captions(grammar, LINES, offset)]
    tgt_lines = captions(spec["target"][0], LINES, spec["target"][1])
    src_lines += [line for lang in spec["source_extra"] for line in committed_sentences(lang)]
    tgt_lines += [line for lang in spec["target_extra"] for line in committed_sentences(lang)]
    src_model = train_sentencepiece(src_lines, SPM_VOCAB)
    tgt_model = train_sentencepiece(tgt_lines, SPM_VOCAB)
    vocab = make_vocab(src_model, tgt_model, spec["language_codes"], spec["left_out"])
    write_folder(os.path.join(OUT, name), name, spec, src_model, tgt_model, vocab)
    print(f"{name}: {len(vocab)} ids, {len(src_lines)} + {len(tgt_lines)} training lines")


def write_folder(folder, name, spec, src_model, tgt_model, vocab, sizes=TINY):
    """The snapshot's files, as save_pretrained writes them, in `folder` (config.json names `name`)."""
    os.makedirs(folder, exist_ok=True)
    pad, eos = vocab["<pad>"], vocab["</s>"]
    for file_name, data in (("source.spm", src_model), ("target.spm", tgt_model)):
        with open(os.path.join(folder, file_name), "wb") as f:
            f.write(data)
    write_json(os.path.join(folder, "vocab.json"), vocab)
    write_json(os.path.join(folder, "config.json"), config_json(name, len(vocab), spec["heads"], pad, sizes))
    write_json(os.path.join(folder, "generation_config.json"), generation_config_json(pad))
    write_json(os.path.join(folder, "tokenizer_config.json"), {
        "clean_up_tokenization_spaces": False,
        "eos_token": "</s>",
        "model_max_length": 512,
        "pad_token": "<pad>",
        "separate_vocabs": False,
        "source_lang": spec["source_lang"],
        "sp_model_kwargs": {},
        "target_lang": spec["target_lang"],
        "tokenizer_class": "MarianTokenizer",
        "unk_token": "<unk>",
    })
    write_json(os.path.join(folder, "special_tokens_map.json"),
               {"eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>"})
    safetensors_io.save(os.path.join(folder, "model.safetensors"),
                        random_state_dict(len(vocab), pad, eos, spec, sizes), metadata={"format": "pt"})


def main():
    for name, spec in SPECS.items():
        write_snapshot(name, spec)


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
