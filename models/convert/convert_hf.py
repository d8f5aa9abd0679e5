#!/usr/bin/env python3
"""Convert a Hugging Face snapshot folder into an attnscope model file (models/FORMAT.md). Run with
/usr/bin/python3 (torch); `transformers` is not needed.

    /usr/bin/python3 models/convert/convert_hf.py SNAPSHOT_FOLDER OUT.safetensors [--f16] [--name NAME]

config.json's model_type chooses the converter (CONVERTERS); each is a module of this folder with
convert(folder, out, dtype="F32", name=None, **options), which raises a ValueError naming the file
and the field of whatever it cannot convert.
"""

import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CONVERTERS = {
    "bert": "hf_bert",
    "gpt2": "hf_gpt2",
    "marian": "hf_marian",
}


def converter_for(folder):
    """The converter module for the snapshot's config.json model_type."""
    path = os.path.join(folder, "config.json")
    if not os.path.isfile(path):
        raise ValueError(f"{path}: file not found (is {folder} a Hugging Face snapshot folder?)")
    with open(path, encoding="utf-8") as f:
        try:
            config = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not valid JSON ({e})") from None
    model_type = config.get("model_type") if isinstance(config, dict) else None
    if model_type not in CONVERTERS:
        raise ValueError(f"{path}: field 'model_type' is {model_type!r}; supported: {', '.join(sorted(CONVERTERS))}")
    return load_converter(CONVERTERS[model_type])


def load_converter(module):
    """This folder's `module`.py, loaded by its path: models/reference/ holds modules of the same names
    (the references the converters are checked against), and either folder may come first on sys.path."""
    key = "attnscope_convert." + module
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, os.path.join(HERE, module + ".py"))
        sys.modules[key] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[key])
    return sys.modules[key]


def convert(folder, out, dtype="F32", name=None, **options):
    return converter_for(folder).convert(folder, out, dtype=dtype, name=name, **options)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="Hugging Face snapshot folder: config.json, the weights, the tokenizer files")
    ap.add_argument("out", help="the attnscope .safetensors to write")
    ap.add_argument("--f16", action="store_true", help="store binary16 weights (half the size)")
    ap.add_argument("--name", help="the model's name in the file (default: the folder's name)")
    args = ap.parse_args()
    try:
        config = convert(args.folder, args.out, dtype="F16" if args.f16 else "F32", name=args.name)
    except ValueError as e:
        sys.exit(f"convert_hf.py: {e}")
    layers = config.get("n_layers", config.get("n_encoder_layers"))
    print(f"{args.out}: {config.get('architecture', 'transformer')}, {layers} layers x {config.get('n_heads')} heads "
          f"x {config.get('d_model')}, {os.path.getsize(args.out) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
