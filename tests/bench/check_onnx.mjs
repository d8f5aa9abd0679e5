// Decodes reference.json's sources with onnxruntime-web over the exported graphs and writes
// every step's logits to ort_check.json; tests/bench/export_onnx.py compares them with PyTorch.
//   node tests/bench/check_onnx.mjs build/bench/onnx
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OrtTranslator } from './ort_engine.mjs';

const dir = process.argv[2] ?? 'build/bench/onnx';
const { config } = JSON.parse(readFileSync(join(dir, 'export.json'), 'utf8'));
const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
const ort = await OrtTranslator.create(dir, config);
const cases = [];
for (const c of reference.cases) {
  const { ids, logits } = await ort.greedy(c.source_ids, reference.max_steps, { keepLogits: true });
  cases.push({ output_ids: ids, logits });
}
await ort.release();
writeFileSync(join(dir, 'ort_check.json'), JSON.stringify({ cases }));
