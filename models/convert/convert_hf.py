#!/usr/bin/env python3
"""Convert a Hugging Face snapshot folder into an attnscope model file (models/FORMAT.md). Run with
/usr/bin/python3 (torch); `transformers` is not needed.

    /usr/bin/python3 models/convert/convert_hf.py SNAPSHOT_FOLDER OUT.safetensors [--f16] [--name NAME]

config.json's model_type chooses the converter (CONVERTERS); each is a module of this folder with
convert(folder, out, dtype="F32", name=None, **options), which raises a ValueError naming the file
and the field of whatever it cannot convert. The snapshot is read as untrusted input
(snapshot_files.py, torch_checkpoint.py).

The converted file is written next to OUT under a temporary name and checked by the engine itself
(`attnscope-cli info --model`, whose loader owns the rules a model file must follow); only a file
the engine loads is moved to OUT. Without a built CLI the file is written unchecked, with a warning.
Exit status: 0 converted, 2 refused (one line on stderr: "convert_hf.py: <file>: <field>: <why>").
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The engine that checks each converted file; ATTNSCOPE_CLI names another build.
ENGINE_CLI = os.environ.get("ATTNSCOPE_CLI") or os.path.join(ROOT, "build", "native", "attnscope-cli")

CONVERTERS = {
    "bert": "hf_bert",
    "gpt2": "hf_gpt2",
    "marian": "hf_marian",
}


def converter_for(folder):
    """The converter module for the snapshot's config.json model_type."""
    path = os.path.join(folder, "config.json")
    if not os.path.lexists(path):
        raise ValueError(f"{path}: file not found (is {folder} a Hugging Face snapshot folder?)")
    config = load_converter("snapshot_files").read_json(folder, "config.json")
    model_type = config.get("model_type")
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


def convert(folder, out, dtype="F32", name=None, engine=ENGINE_CLI, **options):
    """Converts the snapshot `folder` into `out`, which is written only once `engine` (the CLI) loads
    it; returns the attnscope config. `engine` None skips that check (the self-checks' deliberately
    wrong models)."""
    converter = converter_for(folder)
    fd, partial = tempfile.mkstemp(prefix=os.path.basename(out) + ".", suffix=".partial",
                                   dir=os.path.dirname(os.path.abspath(out)))
    os.close(fd)
    try:
        config = converter.convert(folder, partial, dtype=dtype, name=name, **options)
        if engine is not None:
            check_with_engine(engine, folder, partial)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(partial, 0o666 & ~mask)  # mkstemp's 0600 is for the unchecked file only
        os.replace(partial, out)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    return config


def check_with_engine(engine, folder, path):
    """Raises a ValueError naming `folder` when the engine refuses the converted file at `path`."""
    if not os.path.isfile(engine):
        print(f"convert_hf.py: WARNING: the converted file is NOT checked by the engine: {engine} is not built "
              "(cmake --build build/native --target attnscope-cli); the engine may still refuse it", file=sys.stderr)
        return
    run = subprocess.run([engine, "info", "--model", path], capture_output=True, text=True, errors="replace")
    if run.returncode != 0:
        why = (run.stderr.strip().splitlines() or [f"exit status {run.returncode}"])[-1]
        why = why.removeprefix("attnscope-cli: ").removeprefix("error: ").replace(path, "<converted file>")
        raise ValueError(f"{folder}: engine check: attnscope's engine refuses the converted model: {why}")


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
        print(f"convert_hf.py: {e}", file=sys.stderr)
        sys.exit(2)
    layers = config.get("n_layers", config.get("n_encoder_layers"))
    print(f"{args.out}: {config.get('architecture', 'transformer')}, {layers} layers x {config.get('n_heads')} heads "
          f"x {config.get('d_model')}, {os.path.getsize(args.out) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
