#!/usr/bin/env python3
"""Checks the BERT converter on the layouts of real Hugging Face snapshots (run with /usr/bin/python3;
npm test runs it when torch imports). Exits non-zero on any failure.

  1. The snapshots of models/goldens/make_hf_bert_checkpoints.py are written again in a temporary
     folder and must equal tests/data/hf/bert-*; the goldens of make_hf_bert_goldens.py are made
     again in memory and must equal tests/golden/hf/bert-*.json (pieces and ids exactly, numbers
     by models/reference/golden_compare.py's rule for float32 on another CPU).
  2. Each snapshot is converted again: the file must equal tests/golden/hf/<name>.safetensors, its
     tokenizer spec must be what tokenizer_config.json says by BertTokenizer's rules (read here,
     not by the converter), and the converted file run by models/reference/attnscope_ref/bert.py
     must give Hugging Face's attention maps and MLM logits (models/reference/hf_bert.py) within
     1e-4. The same weights without the "bert." prefix must convert to the same file.
  3. Every refusal: a message naming the file and the field.
  4. Sensitivity: a converter that forgot gamma -> weight, one that swapped query and key, one
     that lower-cases a cased model, and a NaN must each fail these comparisons.
"""

import argparse
import filecmp
import json
import os
import shutil
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
ROOT = os.path.dirname(MODELS)
sys.path[:0] = [HERE, os.path.join(MODELS, "goldens"), os.path.join(MODELS, "reference")]

import convert_hf  # noqa: E402
from refusal_check import expect_refusal  # noqa: E402
import make_hf_bert_checkpoints as checkpoints  # noqa: E402
import make_hf_bert_goldens as goldens  # noqa: E402
from attnscope_ref import bert, safetensors_io  # noqa: E402
from golden_compare import differences  # noqa: E402

converter = convert_hf.load_converter("hf_bert")
reference = goldens.reference
GOLDEN = os.path.join(ROOT, "tests", "golden", "hf")
DATA = os.path.join(ROOT, "tests", "data", "hf")
TEXT_FILES = ("config.json", "vocab.txt", "tokenizer_config.json", "tokenizer.json")


def max_diff(want, got):
    """Max abs difference; inf on a shape mismatch or a NaN in either."""
    want, got = torch.as_tensor(want, dtype=torch.float32), torch.as_tensor(got, dtype=torch.float32)
    if want.shape != got.shape or torch.isnan(want).any() or torch.isnan(got).any():
        return float("inf")
    return (want - got).abs().max().item() if want.numel() else 0.0


def expected_spec(folder):
    """The tokenizer settings BertTokenizer takes from tokenizer_config.json (its defaults otherwise)."""
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        tc = json.load(f)
    lowercase = tc.get("do_lower_case", True)
    strip = tc.get("strip_accents")
    return {"lowercase": lowercase, "strip_accents": lowercase if strip is None else strip,
            "tokenize_chinese_chars": tc.get("tokenize_chinese_chars", True)}


def check_converted(name, folder, golden, path):
    """Failures (strings) of the converted file `path` against the snapshot's golden."""
    failures = []
    model, _, spec, vocab = bert.load(path)
    want_spec = expected_spec(folder)
    got_spec = {k: spec.get(k) for k in want_spec}
    if got_spec != want_spec:
        failures.append(f"{name}: tokenizer spec {got_spec}, tokenizer_config.json says {want_spec}")
    if vocab != list(reference.load_vocab(os.path.join(folder, "vocab.txt"))):
        failures.append(f"{name}: vocabulary differs from vocab.txt")
    for c in golden["cases"]:
        with torch.no_grad():
            ours = model(c["ids"])
        if ours["segments"] != c["token_type_ids"]:
            failures.append(f"{name} '{c['text']}': segments {ours['segments']}")
        d_attn = max_diff(c["attention"], ours["attention"])
        d_logits = max_diff(c["mlm_logits"], ours["logits"][c["masked_positions"]])
        if not (d_attn <= 1e-4 and d_logits <= 1e-4):
            failures.append(f"{name} '{c['text']}': attention {d_attn:.2e}, MLM logits {d_logits:.2e}")
    return failures


def compare_golden(name, want, got):
    failures = []
    if json.dumps(want["hf_config"]) != json.dumps(got["hf_config"]) or len(want["cases"]) != len(got["cases"]):
        return [f"{name}: config or cases differ"]
    for w, g in zip(want["cases"], got["cases"]):
        for key in ("text", "pieces", "ids", "token_type_ids", "masked_positions"):
            if w[key] != g[key]:
                failures.append(f"{name} '{w['text']}': {key} {g[key]} != committed {w[key]}")
        for key in ("attention", "mlm_logits"):
            got = g[key].tolist() if isinstance(g[key], torch.Tensor) else g[key]
            failures += differences(got, w[key], where=f"{name} '{w['text']}': {key}")[:5]
    return failures


def same_file(a, b):
    ta, ma = safetensors_io.load(a)
    tb, mb = safetensors_io.load(b)
    return ma == mb and ta.keys() == tb.keys() and all(torch.equal(ta[k], tb[k]) for k in ta)


def check_snapshots(tmp, failures):
    for name in checkpoints.SNAPSHOTS:
        folder = os.path.join(tmp, name)
        _, state, _ = checkpoints.write_snapshot(name, folder)
        committed = os.path.join(DATA, name)
        for f in TEXT_FILES:
            if not filecmp.cmp(os.path.join(folder, f), os.path.join(committed, f), shallow=False):
                failures.append(f"{committed}/{f} is not what make_hf_bert_checkpoints.py writes")
        weights = "pytorch_model.bin" if checkpoints.SNAPSHOTS[name]["format"] == "bin" else "model.safetensors"
        _, ours = converter.read_weights(folder)
        _, theirs = converter.read_weights(committed)
        if ours.keys() != theirs.keys() or not all(torch.equal(ours[k], theirs[k]) for k in ours):
            failures.append(f"{committed}/{weights} is not what make_hf_bert_checkpoints.py writes")

        golden = goldens.snapshot_golden(name, folder, state)
        with open(os.path.join(GOLDEN, name + ".json"), encoding="utf-8") as f:
            committed_golden = json.load(f)
        failures += compare_golden(name, committed_golden, golden)

        out = os.path.join(tmp, name + ".safetensors")
        convert_hf.convert(committed, out, name=name)
        if not same_file(out, os.path.join(GOLDEN, name + ".safetensors")):
            failures.append(f"tests/golden/hf/{name}.safetensors is not what the converter writes")
        found = check_converted(name, committed, golden, out)
        failures += found
        print(f"  {name}: {len(golden['cases'])} texts, attention and MLM logits "
              f"{'ok' if not found else 'FAIL'}")

        if weights == "model.safetensors":  # the same weights without the "bert." prefix
            bare = os.path.join(tmp, name + "-no-prefix")
            shutil.copytree(folder, bare)
            checkpoints.save_safetensors(os.path.join(bare, "model.safetensors"),
                                         {k.replace("bert.", "", 1): v for k, v in state.items()})
            convert_hf.convert(bare, out + ".bare", name=name)
            ta, tb = safetensors_io.load(out)[0], safetensors_io.load(out + ".bare")[0]
            if ta.keys() != tb.keys() or not all(torch.equal(ta[k], tb[k]) for k in ta):
                failures.append(f"{name}: names without 'bert.' convert to other tensors")

    want = json.load(open(os.path.join(GOLDEN, "bert-tokenizer-settings.json"), encoding="utf-8"))
    got = json.loads(json.dumps(goldens.settings_golden()))
    if want != got:
        failures.append("tests/golden/hf/bert-tokenizer-settings.json is not what make_hf_bert_goldens.py makes")
    print(f"  tokenizer settings: {len(got['specs'])} settings x {len(got['specs'][0]['cases'])} texts")


def check_refusals(tmp, failures):
    base = os.path.join(DATA, "bert-base-uncased-tiny")
    old = os.path.join(DATA, "bert-base-uncased-tiny-gamma-beta")

    def edit_json(file, **changes):
        def apply(folder):
            path = os.path.join(folder, file)
            with open(path, encoding="utf-8") as f:
                obj = json.load(f)
            for k, v in changes.items():
                if isinstance(v, dict):
                    obj[k].update(v)
                else:
                    obj[k] = v
            with open(path, "w", encoding="utf-8") as f:
                json.dump(obj, f)
        return apply

    def edit_weights(change):
        def apply(folder):
            path = os.path.join(folder, "model.safetensors")
            state = converter.read_safetensors(path)
            change(state)
            checkpoints.save_safetensors(path, state)
        return apply

    def truncate(keep):
        def apply(folder):
            path = os.path.join(folder, "model.safetensors")
            with open(path, "rb") as f:
                data = f.read()
            with open(path, "wb") as f:
                f.write(data[:keep(len(data))])
        return apply

    def remove(file):
        return lambda folder: os.remove(os.path.join(folder, file))

    def add_vocab_line(folder):
        with open(os.path.join(folder, "vocab.txt"), "a", encoding="utf-8") as f:
            f.write("extra\n")
        edit_json("config.json", vocab_size=len(reference.load_vocab(os.path.join(folder, "vocab.txt"))))(folder)
        edit_json("tokenizer.json", model={"vocab": {p: i for i, p in enumerate(
            reference.load_vocab(os.path.join(folder, "vocab.txt")))}})(folder)

    def bert_model(state):  # BertModel: no prefix, a pooler, no heads
        for k in list(state):
            v = state.pop(k)
            if not k.startswith("cls."):
                state[k.replace("bert.", "", 1)] = v
        state["pooler.dense.weight"], state["pooler.dense.bias"] = torch.zeros(64, 64), torch.zeros(64)

    cases = [
        ("is_decoder", base, edit_json("config.json", is_decoder=True), ["config.json", "'is_decoder'"]),
        ("add_cross_attention", base, edit_json("config.json", add_cross_attention=True),
         ["config.json", "'add_cross_attention'"]),
        ("relative positions", base, edit_json("config.json", position_embedding_type="relative_key"),
         ["config.json", "'position_embedding_type'", "relative_key"]),
        ("gelu_new", base, edit_json("config.json", hidden_act="gelu_new"), ["config.json", "'hidden_act'", "gelu_new"]),
        ("vocab_size", base, edit_json("config.json", vocab_size=30522), ["config.json", "'vocab_size'", "30522"]),
        ("vocabulary vs embeddings", base, add_vocab_line,
         ["vocab.txt", "bert.embeddings.word_embeddings.weight", "model.safetensors"]),
        ("untied decoder", old, None, ["pytorch_model.bin", "cls.predictions.decoder.weight", "ties"]),
        ("BertModel", base, edit_weights(bert_model), ["model.safetensors", "masked-LM head", "BertModel"]),
        ("stray tensor", base, edit_weights(lambda s: s.__setitem__("classifier.weight", torch.zeros(2, 64))),
         ["model.safetensors", "unexpected tensor 'classifier.weight'"]),
        ("wrong shape", base, edit_weights(lambda s: s.__setitem__(
            "bert.encoder.layer.1.output.dense.bias", torch.zeros(63))),
         ["model.safetensors", "bert.encoder.layer.1.output.dense.bias", "[63]"]),
        ("missing tensor", base, edit_weights(lambda s: s.pop("bert.encoder.layer.1.output.dense.weight")),
         ["model.safetensors", "missing tensors", "layers.1.ffn.fc2.weight"]),
        ("truncated data", base, truncate(lambda n: n - 100), ["model.safetensors", "truncated"]),
        ("truncated header", base, truncate(lambda n: 20), ["model.safetensors", "truncated"]),
        ("no weights", base, remove("model.safetensors"), ["model.safetensors", "not found"]),
        ("no vocab.txt", base, remove("vocab.txt"), ["vocab.txt", "not found"]),
        ("no config.json", base, remove("config.json"), ["config.json", "not found"]),
        ("model_type", base, edit_json("config.json", model_type="roberta"), ["config.json", "'model_type'", "roberta"]),
        ("tokenizer files disagree", base, edit_json("tokenizer_config.json", do_lower_case=False),
         ["tokenizer.json", "'normalizer.lowercase'", "tokenizer_config.json", "'do_lower_case'"]),
        ("mask token", base, edit_json("tokenizer_config.json", mask_token="<mask>"),
         ["tokenizer_config.json", "'mask_token'"]),
        ("normalizer", base, edit_json("tokenizer.json", normalizer={"type": "Lowercase"}),
         ["tokenizer.json", "'normalizer.type'"]),
    ]
    for tag, source, edit, words in cases:
        folder = os.path.join(tmp, "refuse-" + tag.replace(" ", "-"))
        shutil.copytree(source, folder)
        if tag == "untied decoder":
            state = convert_hf.load_converter("torch_checkpoint").read_state_dict(
                os.path.join(folder, "pytorch_model.bin"), 1 << 30)
            state["cls.predictions.decoder.weight"] = state["cls.predictions.decoder.weight"] + 1
            torch.save(state, os.path.join(folder, "pytorch_model.bin"))
        else:
            edit(folder)
        expect_refusal(convert_hf.convert, folder, tag, words, failures, tmp)


def check_sensitivity(tmp, failures):
    """Each broken converter must make the comparisons above fail."""
    def fails_with(tag, name, patch, undo):
        folder = os.path.join(DATA, name)
        with open(os.path.join(GOLDEN, name + ".json"), encoding="utf-8") as f:
            golden = json.load(f)
        patch()
        try:
            out = os.path.join(tmp, "broken.safetensors")
            convert_hf.convert(folder, out)
            found = check_converted(name, folder, golden, out)
        except ValueError as e:
            found = [str(e)]
        finally:
            undo()
        print(f"  {tag}: {'caught' if found else 'NOT CAUGHT'}")
        if not found:
            failures.append(f"sensitivity: {tag} was not caught")

    normalised = converter.normalised_name
    fails_with("a converter that forgot gamma -> weight", "bert-base-uncased-tiny-gamma-beta",
               lambda: setattr(converter, "normalised_name", lambda n: n[5:] if n.startswith("bert.") else n),
               lambda: setattr(converter, "normalised_name", normalised))
    layer = dict(converter.LAYER)
    fails_with("a converter that swapped query and key", "bert-base-uncased-tiny",
               lambda: converter.LAYER.update({"attention.self.query": "self_attn.k_proj",
                                               "attention.self.key": "self_attn.q_proj"}),
               lambda: converter.LAYER.update(layer))
    spec = converter.tokenizer_spec
    fails_with("uncased settings on a cased model", "bert-base-cased-tiny",
               lambda: setattr(converter, "tokenizer_spec",
                               lambda f, v: dict(spec(f, v), lowercase=True, strip_accents=True)),
               lambda: setattr(converter, "tokenizer_spec", spec))
    nan = max_diff([1.0, 2.0], [1.0, float("nan")])
    print(f"  a NaN: {'caught' if nan == float('inf') else 'NOT CAUGHT'}")
    if nan != float("inf"):
        failures.append("sensitivity: NaN passes the comparer")


def main():
    torch.set_num_threads(1)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        print("snapshots, goldens and converted files")
        check_snapshots(tmp, failures)
        print("refusals")
        check_refusals(tmp, failures)
        print("sensitivity")
        check_sensitivity(tmp, failures)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("check_hf_bert: snapshots, goldens and conversions agree with Hugging Face's semantics; every bad "
          "snapshot refused; every broken converter caught")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
