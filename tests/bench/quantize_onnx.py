#!/usr/bin/python3
"""Quantize the benchmark's ONNX graphs the way onnxruntime's dynamic quantization does.

    /usr/bin/python3 tests/bench/quantize_onnx.py [--onnx build/bench/onnx] [--per-tensor] [--full-range]

Reads encoder_model.onnx, decoder_model.onnx and decoder_with_past_model.onnx (written by
tests/bench/export_onnx.py) and writes encoder_model.q8.onnx, ... beside them, plus
quantize.json (the settings and what was quantized). Needs only Debian's python3-onnx and numpy:
onnxruntime's Python package (onnxruntime.quantization) is not installable here, so this script
rewrites the graphs as its ONNXQuantizer in IntegerOps mode (what `quantize_dynamic` and
transformers.js's scripts/quantize.py run) rewrites them:

- every MatMul whose B is a constant initializer (transformers.js passes MatMulConstBOnly=True;
  the attention products q·kᵀ and attn·v have no constant input and stay f32) becomes
      x_q, x_scale, x_zp = DynamicQuantizeLinear(x)            (uint8, asymmetric, per tensor, per call)
      y_int = MatMulInteger(x_q, W_q, x_zp, W_zp)              (int32)
      y = Cast(y_int, float) * (x_scale * W_scale)
  and the Add of the bias that follows stays as it is. Like ORT, one DynamicQuantizeLinear is
  shared by every MatMul that reads the same activation (Q, K and V read one LayerNorm output).
- every Gather whose data is a float initializer (the embedding table) reads an int8 copy and is
  followed by DequantizeLinear: ORT's IntegerOps registry holds Gather (GatherQuant) too, per
  tensor, so transformers.js's q8 files carry int8 embeddings. (The lookup costs the same either
  way; the tables shrink fourfold.)

Weights, as transformers.js stores them for a q8 model without Conv layers: QInt8 (signed,
symmetric, zero point 0), because its quantize script picks QInt8 unless the graph has a Conv
(onnxruntime-web has no int8 ConvInteger) and ORT's docs call signed weights the faster choice
on most CPUs. Per output channel with the reduced 7-bit range ([-64, 64]): the settings
transformers.js's convert script used for its published q8 models (their quantize_config.json
reads "per_channel": true, "reduce_range": true, "weight_type": "QInt8" for models without Conv;
reduce_range avoids the int16 overflow of u8·s8 pair sums in the non-VNNI x86 kernels).
`--per-tensor --full-range` gives `quantize_dynamic`'s own defaults instead (per_channel=False,
reduce_range=False: one scale per matrix, [-127, 127]). The arithmetic copied from
onnxruntime/python/tools/quantization (quant_utils.compute_scale_zp, quantize_data):
    rmin = min(w, 0), rmax = max(w, 0); symmetric: absmax = max(|rmin|, |rmax|)
    scale = 2·absmax / (qmax − qmin)  (1 when absmax = 0),  zero point 0,
    W_q = clip(round_half_even(w / scale), qmin, qmax)
with [qmin, qmax] = [-64, 64] (reduce_range) or [-127, 127], in float32; per channel means per
column of B ([in, out]: axis -1, the output features), so W_zp and W_scale are vectors [out].
The Gather tables: per tensor, [-127, 127] (GatherQuant quantizes without reduce_range).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = Path(__file__).resolve().parents[2]
GRAPHS = ("encoder_model", "decoder_model", "decoder_with_past_model")


def quantize_symmetric(w: np.ndarray, qmax: int, axis: int | None) -> tuple[np.ndarray, np.ndarray]:
    """int8 values and float32 scales of `w` (per slice along `axis`, or one scale when None)."""
    w = w.astype(np.float32)
    if axis is None:
        absmax = np.float32(max(abs(min(float(w.min()), 0.0)), abs(max(float(w.max()), 0.0))))
    else:
        reduce = tuple(i for i in range(w.ndim) if i != axis % w.ndim)
        absmax = np.maximum(np.abs(np.minimum(w.min(axis=reduce), 0)), np.abs(np.maximum(w.max(axis=reduce), 0)))
    absmax = np.asarray(absmax, dtype=np.float32)
    scale = np.where(absmax > 0, (2 * absmax) / np.float32(2 * qmax), np.float32(1)).astype(np.float32)
    q = np.clip(np.round(w / scale), -qmax, qmax).astype(np.int8)  # np.round: half to even, as ORT
    return q, scale


class Quantizer:
    """Rewrites one graph in place; `report` counts what it quantized."""

    def __init__(self, model: onnx.ModelProto, per_channel: bool, reduce_range: bool):
        self.model = model
        self.graph = model.graph
        self.per_channel = per_channel
        self.qmax = 64 if reduce_range else 127
        self.inits = {t.name: t for t in self.graph.initializer}
        self.uses = Counter(i for n in self.graph.node for i in n.input)
        self.dynamic = {}  # activation name -> (x_q, x_scale, x_zp), shared as ORT shares them
        self.report = {"matmul_integer": 0, "matmul_kept_f32": 0, "gather_int8": 0, "weights_int8": 0}

    def float_initializer(self, name: str):
        t = self.inits.get(name)
        return t if t is not None and t.data_type == TensorProto.FLOAT else None

    def add_initializer(self, array: np.ndarray, name: str) -> str:
        self.graph.initializer.append(numpy_helper.from_array(array, name))
        return name

    def drop_initializer(self, name: str) -> None:
        self.uses[name] -= 1
        if self.uses[name] == 0:
            self.graph.initializer.remove(self.inits.pop(name))

    def activation(self, x: str, out: list) -> tuple[str, str, str]:
        if x not in self.dynamic:
            names = (f"{x}_quantized", f"{x}_scale", f"{x}_zero_point")
            out.append(helper.make_node("DynamicQuantizeLinear", [x], list(names), f"{x}_QuantizeLinear"))
            self.dynamic[x] = names
        return self.dynamic[x]

    def matmul(self, node, out: list) -> None:
        w = self.float_initializer(node.input[1])
        if w is None:  # MatMulConstBOnly: activations times activations stay f32
            self.report["matmul_kept_f32"] += 1
            out.append(node)
            return
        weight = numpy_helper.to_array(w)
        q, scale = quantize_symmetric(weight, self.qmax, -1 if self.per_channel else None)
        base = w.name
        w_q = self.add_initializer(q, f"{base}_quantized")
        w_scale = self.add_initializer(scale, f"{base}_scale")
        w_zp = self.add_initializer(np.zeros(scale.shape, dtype=np.int8), f"{base}_zero_point")
        self.drop_initializer(w.name)
        x_q, x_scale, x_zp = self.activation(node.input[0], out)
        name = node.name or node.output[0]
        y_int = f"{node.output[0]}_output_quantized"
        out.append(helper.make_node("MatMulInteger", [x_q, w_q, x_zp, w_zp], [y_int], f"{name}_quant"))
        out.append(helper.make_node("Cast", [y_int], [f"{y_int}_cast_output"], f"{y_int}_cast", to=TensorProto.FLOAT))
        out.append(helper.make_node("Mul", [x_scale, w_scale], [f"{name}_quant_scales_mul:0"], f"{name}_quant_scales_mul"))
        out.append(helper.make_node("Mul", [f"{y_int}_cast_output", f"{name}_quant_scales_mul:0"], [node.output[0]],
                                    f"{name}_quant_output_scale_mul"))
        self.report["matmul_integer"] += 1
        self.report["weights_int8"] += int(q.size)

    def gather(self, node, out: list) -> None:
        table = self.float_initializer(node.input[0])
        if table is None:  # shape arithmetic: Gather over a computed tensor
            out.append(node)
            return
        q, scale = quantize_symmetric(numpy_helper.to_array(table), 127, None)
        base = table.name
        t_q = self.add_initializer(q, f"{base}_quantized")
        t_scale = self.add_initializer(scale.reshape(()), f"{base}_scale")
        t_zp = self.add_initializer(np.zeros((), dtype=np.int8), f"{base}_zero_point")
        self.drop_initializer(table.name)
        gathered = f"{node.output[0]}_quantized"
        out.append(helper.make_node("Gather", [t_q, *node.input[1:]], [gathered], node.name,
                                    **{a.name: helper.get_attribute_value(a) for a in node.attribute}))
        out.append(helper.make_node("DequantizeLinear", [gathered, t_scale, t_zp], [node.output[0]],
                                    f"{node.output[0]}_DequantizeLinear"))
        self.report["gather_int8"] += 1
        self.report["weights_int8"] += int(q.size)

    def run(self) -> dict:
        out = []
        for node in self.graph.node:
            if node.op_type == "MatMul":
                self.matmul(node, out)
            elif node.op_type == "Gather":
                self.gather(node, out)
            else:
                out.append(node)
        del self.graph.node[:]
        self.graph.node.extend(out)
        # MatMulInteger needs opset >= 10, DynamicQuantizeLinear >= 11: the export's 17 has both.
        onnx.checker.check_model(self.model)
        return self.report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--onnx", default=str(REPO / "build/bench/onnx"), help="folder of the exported fp32 graphs")
    ap.add_argument("--per-tensor", action="store_true", help="one weight scale per matrix (quantize_dynamic's default)")
    ap.add_argument("--full-range", action="store_true", help="weights in [-127, 127] (reduce_range=False)")
    args = ap.parse_args()
    folder = Path(args.onnx).resolve()
    settings = {"weight_type": "QInt8 (symmetric, zero point 0)", "activation_type": "QUInt8 (DynamicQuantizeLinear)",
                "per_channel": not args.per_tensor, "reduce_range": not args.full_range,
                "matmul_const_b_only": True, "gather": "int8 per tensor + DequantizeLinear",
                "onnx": onnx.__version__}
    graphs = {}
    for name in GRAPHS:
        source = folder / f"{name}.onnx"
        if not source.exists():
            raise SystemExit(f"{source} is missing: run tests/bench/export_onnx.py first")
        model = onnx.load(str(source))
        report = Quantizer(model, settings["per_channel"], settings["reduce_range"]).run()
        target = folder / f"{name}.q8.onnx"
        onnx.save(model, str(target))
        report["bytes"] = target.stat().st_size
        report["fp32_bytes"] = source.stat().st_size
        graphs[f"{name}.q8.onnx"] = report
        print(f"  {target.name}: {report['matmul_integer']} MatMul -> MatMulInteger, {report['gather_int8']} Gather "
              f"on int8, {report['matmul_kept_f32']} MatMul of activations kept f32; "
              f"{report['fp32_bytes'] / 1e6:.1f} MB -> {report['bytes'] / 1e6:.1f} MB", flush=True)
        if report["matmul_integer"] == 0:
            raise SystemExit(f"{source}: no MatMul with a constant weight was found to quantize")
    (folder / "quantize.json").write_text(json.dumps({"settings": settings, "graphs": graphs}, indent=2) + "\n")


if __name__ == "__main__":
    os.chdir(REPO)
    sys.exit(main())
