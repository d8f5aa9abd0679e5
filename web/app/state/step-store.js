// The page's copy of one session: what the worker sent when it opened (the source, the site
// table, the attention that is computed once per source, the rollout) and every step it has sent
// since, appended as they come (web/app/worker/worker.js "update": keep the first `keep` steps, append
// the new ones). Nothing here asks the engine for anything: a snapshot is put together from the
// stored steps, along the followed hypothesis.
import { siteNamed } from '../model/sites.js';
import { tokenLabel } from '../util/pieces.js';

export class StepStore {
  #opened = null; // the worker's answer to 'open': fixed parts of the session
  #steps = []; // per step: {step, forced, forcedToken, expansions: [{prefix, score, top, attention, vnorm, chosen}]}
  #snapshot = null;

  /** The latest snapshot (null before a session opened). */
  get snapshot() { return this.#snapshot; }

  /** How many steps are stored (the test of "append, don't re-fetch" reads it). */
  get size() { return this.#steps.length; }

  /**
   * Takes an answer of the worker: a new session ('open'), or an update of the current one.
   * Returns the new snapshot, or null for an answer about a session this store no longer shows.
   */
  apply(answer) {
    if (answer.fresh) {
      this.#opened = answer;
      this.#steps = [];
    } else if (answer.sid !== this.#opened?.sid) {
      return null;
    } else if ('rollout' in answer) { // a prompt's analyses, with its first step
      this.#opened = { ...this.#opened, rollout: answer.rollout, patterns: answer.patterns };
    }
    if (answer.keep > this.#steps.length) throw new Error(`the worker kept ${answer.keep} steps, the page has ${this.#steps.length}`);
    this.#steps.length = answer.keep;
    this.#steps.push(...answer.steps);
    this.#snapshot = snapshotOf(this.#opened, this.#steps, answer);
    return this.#snapshot;
  }
}

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The rows of the followed path: per step, the expansion that led along it and its alternatives. */
function rowsOf(opened, steps, path) {
  const rows = [];
  for (let k = 0; k < path.ids.length && k < steps.length; k++) {
    const record = steps[k];
    const e = record.expansions.findIndex((x) => same(x.prefix, path.ids.slice(0, k)));
    if (e < 0) break;
    const x = record.expansions[e];
    const id = path.ids[k];
    const row = {
      step: k, hypothesis: x.hypothesis, prefixScore: x.score, expansion: e,
      // What the step read last: a prompt's first step reads all of source.pieces, its last piece predicting.
      input: k > 0 ? path.tokens[k - 1] : opened.input === 'prompt' ? opened.source.pieces.at(-1) : opened.bos,
      output: path.tokens[k], outputId: id,
      forced: record.forced && record.forcedToken === id,
      top: x.top,
    };
    // The chosen token is not among the top alternatives (forced, or sampled from the tail):
    // its raw logit and log-probability, as the worker read them from the engine's vectors.
    if (!x.top.some((a) => a.id === id) && x.chosen[id]) row.chosen = { id, token: path.tokens[k], ...x.chosen[id] };
    Object.defineProperty(row, 'trace', { value: x, enumerable: false });
    rows.push(row);
  }
  return rows;
}

function snapshotOf(opened, steps, update) {
  const { state, path } = update;
  const rows = rowsOf(opened, steps, path);
  const snap = {
    sid: opened.sid, url: opened.url, options: opened.options,
    steps: state.steps, done: state.done, hitMaxLength: state.hitMaxLength, maxLength: state.maxLength,
    live: state.live, finished: state.finished, nbest: state.nbest,
    source: opened.source, input: opened.input, bos: opened.bos, eos: opened.eos, sites: opened.sites, subwords: opened.subwords,
    path, rows, forcedSteps: update.forcedSteps, forced: update.forced ?? [],
    tree: update.tree ?? null, // only when asked for (the beam view): null until then
    rollout: opened.rollout, patterns: opened.patterns, vectors: opened.vectors,
  };
  /**
   * One site's attention along the path, as the views take it: the tokens of its queries and
   * keys and, for a per-step site, one [layers, heads, keys] tensor per row; else one
   * [layers, heads, queries, keys] tensor. vnorm: the engine's ‖α·f(x)‖ instead of the weights;
   * show: tokens as pieces, not words (web/app/util/pieces.js).
   */
  snap.attention = (name, { vnorm = false, show = false } = {}) => {
    const site = siteNamed(opened.sites, name);
    if (!site) return null;
    const field = vnorm ? 'vnorm' : 'attention';
    const label = (p) => tokenLabel(p, { subwords: opened.subwords, show });
    const source = opened.source.pieces.map(label);
    const inputs = rows.map((r) => label(r.input));
    const outputs = rows.map((r) => label(r.output));
    const tokens = path.tokens.map(label);
    const side = {
      source: { labels: source, text: (i) => `“${source[i]}”` },
      target: site.perStep
        ? { labels: inputs, text: (i) => `position ${i} “${inputs[i]}”` }
        : { labels: tokens, text: (i) => `“${tokens[i]}”` },
    };
    const traces = rows.map((r) => r.trace[field]?.[name]);
    if (opened.input === 'prompt' && site.perStep) return causalMap(site, source, outputs, traces);
    const queries = site.perStep
      ? { labels: outputs.map((o, k) => `${k + 1}) ${o}`), text: (i) => `step ${i + 1}, producing “${outputs[i]}”,` }
      : side[site.queries];
    return {
      site, queries, keys: side[site.keys], highlightRow: site.perStep ? rows.length - 1 : -1,
      ...(site.perStep ? { rows: traces } : { tensor: opened[field]?.[name] }),
    };
  };
  return snap;
}

/**
 * A decoder-only model's map of its context (the prompt as it reads it, <bos> first only where it
 * reads one, then what it generated): the first step's tensor holds a row per position of the
 * prompt, each later step one row more, so the rows stacked are the lower triangle of a context ×
 * context map (web/app/views/views.js headRows lays a first step's rows out). `opening`: the
 * prompt's pieces as shown; `outputs`: the tokens generated along the path; `traces`: each step's tensor.
 */
function causalMap(site, opening, outputs, traces) {
  const context = [...opening, ...outputs.slice(0, -1)];
  const made = (i) => outputs[i - opening.length + 1];
  return {
    site, highlightRow: context.length - 1, rows: traces, context: true,
    queries: {
      labels: context,
      text: (i) => `position ${i} “${context[i]}”${made(i) === undefined ? '' : `, choosing “${made(i)}”,`}`,
    },
    keys: { labels: context, text: (i) => `position ${i} “${context[i]}”` },
  };
}
