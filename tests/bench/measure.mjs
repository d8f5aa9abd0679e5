// What the benchmarks measure and how they sum it up: one timed translation per engine
// (attnscope's session, ORT's greedy loop), every WebAssembly memory an engine creates, and the
// totals and medians over sentences and repeats. tests/bench/bench.mjs and real_size.mjs share them.

const now = () => performance.now();

/**
 * One attnscope translation with decoding `options`: translate() = tokenize + encoder + cross
 * K/V; then the first step() (for the time to the first token) and run() for the rest.
 */
export function timedTranslation(model, text, options) {
  const t0 = now();
  const session = model.translate(text, options);
  const t1 = now();
  session.step();
  const t2 = now();
  session.run();
  const t3 = now();
  const ids = session.nbest()[0]?.ids ?? [];
  const steps = session.steps;
  session.dispose();
  return { encodeMs: t1 - t0, decodeMs: t3 - t1, firstTokenMs: t2 - t0, laterStepsMs: t3 - t2, ids, steps };
}

/**
 * One ORT greedy translation of source `ids`, or continuation of prompt `ids`
 * (tests/bench/ort_engine.mjs; `options` go to its greedy()), as timedTranslation reports it.
 */
export async function timedOrt(ort, ids, maxLength, options = {}) {
  const r = await ort.greedy(ids, maxLength, options);
  return { encodeMs: r.encodeMs, decodeMs: r.decodeMs, firstTokenMs: r.firstTokenMs, laterStepsMs: r.laterStepsMs, ids: r.ids, steps: r.ids.length };
}

/** Catches every WebAssembly memory created or exported (to read the engines' linear memory). */
export function watchWasmMemories() {
  const memories = new Set();
  const note = (instance) => {
    for (const v of Object.values(instance?.exports ?? {})) if (v instanceof WebAssembly.Memory) memories.add(v);
  };
  const OriginalMemory = WebAssembly.Memory;
  WebAssembly.Memory = new Proxy(OriginalMemory, {
    construct(target, a) { const m = new target(...a); memories.add(m); return m; },
  });
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async function (...a) {
    const r = await instantiate.apply(this, a);
    note(r.instance ?? r);
    return r;
  };
  if (WebAssembly.instantiateStreaming) {
    const streaming = WebAssembly.instantiateStreaming;
    WebAssembly.instantiateStreaming = async function (...a) {
      const r = await streaming.apply(this, a);
      note(r.instance);
      return r;
    };
  }
  const OriginalInstance = WebAssembly.Instance;
  WebAssembly.Instance = new Proxy(OriginalInstance, {
    construct(target, a) { const i = new target(...a); note(i); return i; },
  });
  return () => [...memories].reduce((sum, m) => sum + m.buffer.byteLength, 0);
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Totals of one pass over sentences [0, n). */
export function totals(runs, n = runs.length) {
  const t = { sentences: n, encodeMs: 0, decodeMs: 0, firstTokenMs: 0, tokens: 0, steps: 0 };
  for (const r of runs.slice(0, n)) {
    t.encodeMs += r.encodeMs;
    t.firstTokenMs += r.firstTokenMs;
    t.decodeMs += r.decodeMs;
    t.tokens += r.ids.length;
    t.steps += r.steps;
  }
  t.encodePerSentenceMs = t.encodeMs / n;
  t.firstTokenPerSentenceMs = t.firstTokenMs / n;
  t.decodePerTokenMs = t.decodeMs / t.tokens;
  t.decodePerStepMs = t.decodeMs / t.steps;
  t.perSentenceMs = (t.encodeMs + t.decodeMs) / n;
  t.sentencesPerSecond = 1000 * n / (t.encodeMs + t.decodeMs);
  return t;
}

/** Median over repeats of each figure of totals(); also the per-repeat values. */
export function summarize(passes, n) {
  const per = passes.map((runs) => totals(runs, n));
  const out = { repeats: per };
  for (const key of ['encodePerSentenceMs', 'firstTokenPerSentenceMs', 'decodePerTokenMs', 'decodePerStepMs', 'perSentenceMs', 'sentencesPerSecond']) {
    out[key] = median(per.map((t) => t[key]));
  }
  out.tokens = per[0].tokens;
  out.steps = per[0].steps;
  out.sentences = n;
  return out;
}
