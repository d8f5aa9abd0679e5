// The demo page's conversation with the engine's worker: one request at a time, in order; each
// answer is applied to the page's copy of the session (web/app/state/step-store.js: appended, never
// fetched again) and the new snapshot goes into the store. Translating, stepping, forcing a
// token, following a hypothesis, and the unmodified translation beside a modified model.
import { defaultModelId, findModel, modelUrl } from '../../models.js';
import { formatBytes } from './client.js';
import { byId as $ } from '../util/html.js';
import { fitInterventions } from '../panels/interventions.js';
import { fitView } from '../views/attention-view.js';
import { decodeOptions, hasInterventions, noInterventions, strategyOptions } from '../state/state.js';
import { StepStore } from '../state/step-store.js';

const sameIds = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The followed hypothesis as the URL keeps it: an n-best entry (hyp), else its ids (path). */
function selectionOf(snap) {
  if (!snap.path.selected) return { hyp: null, path: null };
  const i = snap.done ? snap.nbest.findIndex((h) => sameIds(h.ids, snap.path.ids)) : -1;
  return i >= 0 ? { hyp: i, path: null } : { hyp: null, path: [...snap.path.ids] };
}

/**
 * store: the page store; engine: the worker's client; ui: {showError(e), stopPlay(),
 * readForm() (the form's fields into the store), panel (the "Break the model" panel),
 * encoderOnly({url, text, info, entry, iv}) (a model with nothing to translate was chosen: resolves
 * once its page shows, rejects with the engine's error)}.
 */
export function createRequests({ store, engine, ui }) {
  const app = $('app');
  const steps = new StepStore();
  const outcomes = new Map(); // key -> promise of an 'outcome' answer (the unmodified translations)
  const wantsTree = () => store.get().st.view === 'beam'; // the beam tree grows with every step: only the beam view asks
  let queue = Promise.resolve();
  let pending = 0;
  let slowTimer = 0;
  let vectorsAsked = null;
  let treeAsked = null; // the snapshot whose tree was asked for
  // A press of Next is answered before it is made: once an answer is shown, the page asks the
  // worker for the next step and holds the answer. Next applies it in the click's own task, so
  // the map is redrawn without a round trip through the worker (whose answer Chromium runs only
  // after the frame that follows the click). Meanwhile the worker's session is one step past
  // the page's: every other request on it first takes it back (rewind).
  let ahead = null; // {sid, at: the page's step count when asked, answer: promise of the step's update}
  let lookAhead = true;
  // The interventions of what the page shows (null: nothing shown yet): a change the engine
  // refuses is rolled back to them, in the controls and the URL.
  let accepted = null;
  // The model the views show ({model, url, s}; null: none yet). A model that cannot be loaded
  // (refused, cancelled, unreachable) leaves the picker, the sentence and the URL as they were:
  // the page never names one model while it shows another.
  let shown = null;

  /**
   * After `e`, an error on the way to showing the model `entry` (`loaded`: whether the engine
   * holds it). One that could not be loaded: the picker and the URL go back to the model the
   * views show, and the error says which (`hint`: whether its word hints were hidden); with
   * nothing shown yet, the default model takes its place, and the error stays said beside it.
   * One that loaded but refused the sentence (or the options) stays chosen, to be given another:
   * the error says which model the views still show.
   */
  function keepShownModel(e, entry, loaded, hint) {
    if (store.get().st.model !== entry.id) return; // another choice came since
    if (loaded) {
      if (shown) e.message += ` The views still show “${findModel(shown.model)?.label ?? shown.model}”.`;
      return;
    }
    const back = shown?.model ?? (entry.id !== defaultModelId ? defaultModelId : null);
    if (!back || back === entry.id) return;
    const label = findModel(back)?.label ?? back;
    $('model').value = back;
    // The picker's change put the new model's example in the box: the shown sentence returns.
    const swapped = shown && entry.example && $('sentence').value.trim() === entry.example && shown.s !== entry.example;
    if (swapped) $('sentence').value = shown.s;
    store.setState({ model: back, ...(swapped ? { s: shown.s } : {}) });
    if (shown) {
      $('vocab-hint').hidden = hint;
      e.message += ` The page still shows “${label}”.`;
    } else {
      e.message += ` The page shows “${label}” instead.`;
      translate({ step: 1, keepError: true });
    }
  }

  /** A worker's answer into the page's session copy, and the snapshot into the store. */
  function apply(answer, patch = {}) {
    const snap = steps.apply(answer);
    if (!snap) return;
    const st = fitView({ ...store.get().st, step: snap.steps, forced: snap.forced, ...selectionOf(snap) }, snap.sites);
    store.set({ ...patch, st, snap });
    askAhead();
  }

  /** Asks the worker for the step after the one shown (see `ahead`); idle() waits for it too. */
  function askAhead() {
    ahead = null;
    const { snap } = store.get();
    if (!lookAhead || !snap || snap.done) return;
    const answer = engine.request('step', { sid: snap.sid, tree: wantsTree() });
    const settled = answer.catch(() => {}); // its error, if any, is the next press's
    ahead = { sid: snap.sid, at: snap.steps, answer };
    queue = queue.then(() => settled);
  }

  /** Takes the worker's session back to the page's step when it went one past it (askAhead). */
  async function rewind(snap) {
    const held = ahead;
    ahead = null;
    if (held?.sid !== snap.sid) return;
    await held.answer.catch(() => {});
    await engine.request('goto', { sid: snap.sid, step: held.at }); // nothing the page shows changes
  }

  /** The round trip of a `type` request that started at `start`, in the page's timeline. */
  function measured(type, start) {
    performance.clearMeasures(`attnscope:round-trip:${type}`); // the latest of each type is kept
    performance.measure(`attnscope:round-trip:${type}`, { start });
  }

  /**
   * Runs engine work one piece at a time; an answer it returns is applied. Its success clears
   * the page's error, unless `keepError` (an error that says why this work was asked for).
   */
  function run(work, { keepError = false } = {}) {
    pending++;
    app.dataset.busy = 'true';
    // "working…" only when the engine takes long enough to notice (a big model loading).
    clearTimeout(slowTimer);
    slowTimer = setTimeout(() => app.classList.toggle('slow', pending > 0), 300);
    queue = queue.then(async () => {
      try {
        const answer = await work();
        if (answer?.sid) apply(answer);
        if (!keepError) ui.showError(null);
      } catch (e) {
        ui.stopPlay();
        // Refused interventions are said once, in the panel beside their controls (translate()).
        ui.showError(e.saidInPanel ? null : e);
      } finally {
        if (--pending === 0) {
          app.dataset.busy = 'false';
          app.classList.remove('slow');
        }
      }
    });
    return queue;
  }

  /** Where a re-translation should go: the same step, or the end if the current one is done. */
  const keepStep = () => {
    const { snap, st } = store.get();
    return snap ? (snap.done ? 'end' : snap.steps) : st.step;
  };

  /** Sessions keep the value and query/key vectors (memory) only while a view needs them. */
  const needsVectors = (st) => st.vnorm || st.an === 'vectors';

  /** How the unmodified model translates `text` with `options` (asked once per sentence and options). */
  function outcomeOf(url, text, options, onProgress) {
    const key = JSON.stringify([url, text, options]);
    if (!outcomes.has(key)) {
      const promise = engine.request('outcome', { url, text, options }, onProgress);
      promise.catch(() => outcomes.delete(key));
      outcomes.set(key, promise);
      if (outcomes.size > 50) outcomes.delete(outcomes.keys().next().value);
    }
    return outcomes.get(key);
  }

  /**
   * A new session of the form's sentence, model and options at `step`. With `restore`, the state's
   * forced tokens and followed hypothesis are replayed (a shared URL, the same session with vectors).
   */
  function translate({ step = 1, restore = false, keepError = false } = {}) {
    ui.stopPlay();
    ui.readForm();
    const st = store.get().st;
    const entry = findModel(st.model);
    const url = modelUrl(entry);
    const text = st.s;
    const asked = st.iv;
    const want = { ...st, vectors: needsVectors(st) };
    // Another model: what is on screen is the old model's (its word hints, maps, logits), so it is
    // greyed out and its hints hidden until the new model's first answer replaces it.
    const before = store.get().snap;
    const hint = $('vocab-hint').hidden;
    if (before && before.url !== url) {
      app.classList.add('stale');
      $('vocab-hint').hidden = true;
    }
    return run(async () => {
      let loaded = false; // whether the engine holds the model (a failure after it is the text's or the options')
      const bar = $('progress-bar');
      const onProgress = ({ loaded, total }) => {
        $('progress').hidden = false;
        bar.max = total || loaded || 1;
        bar.value = loaded;
        $('progress-text').textContent = `Loading ${entry.label}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`;
      };
      try {
        let options = decodeOptions(want);
        let unmodified = null;
        let fitted = null; // {iv, sites, info, pieces}: the interventions as sent, and the model's sites and info
        // A model the views do not show yet is loaded first, so that a failure to load it is
        // told apart from one of the sentence (the engine keeps it: `open` then finds it loaded).
        const described = hasInterventions(asked) || shown?.url !== url ? await engine.request('load', { url }, onProgress) : null;
        loaded = true;
        if (hasInterventions(asked)) {
          // Fit the interventions to this model and sentence (a link made with another model, a
          // custom row of another length, an option this model's family refuses), and get the
          // unmodified translation to show beside (a model without a decoder translates nothing).
          if (described.hasDecoder) unmodified = await outcomeOf(url, text, strategyOptions(want), onProgress);
          const iv = fitInterventions(asked, described.sites, unmodified?.source.ids.length, described);
          if (store.get().st.iv === asked) store.setState({ iv });
          options = decodeOptions({ ...want, iv });
          fitted = { iv, sites: described.sites, info: described, pieces: unmodified?.source.pieces ?? [] };
        }
        const refused = (e) => {
          if (!fitted || e.name !== 'AttnscopeError') return e;
          // Said in the panel, beside the controls that caused it (a custom row of the wrong
          // length…), and the change rolled back to what is shown. With nothing shown yet (a link
          // to a broken matrix) the panel keeps the link's interventions, so they can be edited or reset.
          if (accepted && store.get().st.iv === fitted.iv) {
            const back = fitInterventions(accepted, fitted.sites, fitted.pieces.length, fitted.info);
            store.setState({ iv: back });
            ui.panel.render(back, fitted.sites, fitted.pieces, fitted.info);
          } else if (!accepted) {
            ui.panel.render(fitted.iv, fitted.sites, fitted.pieces, fitted.info);
          }
          ui.panel.showError(e.message, { undone: !!accepted });
          e.saidInPanel = true;
          return e;
        };
        let answer;
        try {
          const replay = restore ? {
            forced: st.forced.map((f) => ({ ...f })),
            select: st.hyp !== null ? { nbest: st.hyp } : st.path ? { ids: st.path } : undefined,
          } : {};
          const start = performance.now();
          answer = await engine.request('open', { url, text, options, step, replace: store.get().snap?.sid, tree: wantsTree(), ...replay }, onProgress);
          performance.clearMeasures('attnscope:round-trip:open');
          performance.measure('attnscope:round-trip:open', { start });
        } catch (e) {
          throw refused(e);
        }
        const used = fitted?.iv ?? noInterventions();
        if (answer.encoderOnly) {
          // Nothing to translate: the encoder-only panel takes the text (web/app/panels/encoder-page.js).
          store.set({ info: answer.info });
          try {
            await ui.encoderOnly({ url, text, info: answer.info, entry, iv: used });
          } catch (e) {
            throw refused(e);
          }
          ui.panel.showError(null);
          accepted = used;
          shown = { model: st.model, url, s: text };
          return null;
        }
        ui.panel.showError(null);
        accepted = used;
        apply(answer, { info: answer.info, original: unmodified });
        shown = { model: st.model, url, s: text };
        return null;
      } catch (e) {
        if (/cannot fetch model/.test(e.message)) e.message = `Could not load the model “${entry.label}”: ${e.message.replace(/^cannot fetch model '[^']*': /, '')}`;
        else if (!loaded) e.message = `Could not load the model “${entry.label}”: ${e.message}`;
        if (shown?.url !== url) keepShownModel(e, entry, loaded, hint);
        throw e;
      } finally {
        $('progress').hidden = true;
        app.classList.remove('stale');
      }
    }, { keepError });
  }

  /**
   * A request on the current session. The round trip to the worker is measured in the page's
   * timeline (attnscope:round-trip:TYPE, for tests/bench/page_latency.mjs); applying the answer
   * and drawing follow synchronously, up to the mark attnscope:heatmap-drawn.
   */
  const nav = (type, args = {}) => run(async () => {
    const { snap } = store.get();
    return snap ? ask(snap, type, args) : null;
  });

  async function ask(snap, type, args = {}) {
    await rewind(snap);
    const start = performance.now();
    const answer = await engine.request(type, { sid: snap.sid, tree: wantsTree(), ...args });
    measured(type, start);
    return answer;
  }

  /**
   * Next: the step held ahead when it is the one after the step shown (applied in the click's
   * task when nothing is queued before it; its wait is measured as the round trip), else asked now.
   */
  function next() {
    if (!store.get().snap || store.get().snap.done) return;
    const start = performance.now();
    run(async () => {
      const { snap } = store.get(); // what the queue before this press left on the page
      if (!snap || snap.done) return null;
      const held = ahead;
      if (!lookAhead || held?.sid !== snap.sid || held.at !== snap.steps) return ask(snap, 'step');
      ahead = null;
      const answer = await held.answer;
      measured('step', start);
      return answer;
    });
  }

  return {
    run, translate, nav, keepStep, outcomeOf,
    /** Resolves when every request so far has been answered and applied. */
    idle: () => queue,
    get pending() { return pending; },
    /** Whether the next step is asked for before Next is pressed (see `ahead`; on by default). */
    get lookAhead() { return lookAhead; },
    set lookAhead(on) { lookAhead = !!on; },
    /** The page's copy of the session's steps (web/app/state/step-store.js). */
    steps,
    next,
    prev() { const { snap } = store.get(); if (snap && snap.steps > 0) nav('back'); },
    goto(step) { ui.stopPlay(); nav('goto', { step }); },
    force(tokenId) {
      ui.stopPlay();
      const row = store.get().snap?.rows.at(-1);
      if (row) nav('force', { step: row.step, token: tokenId });
    },
    selectPath(ids) { nav('select', { path: ids }); },
    /** The beam tree of the position shown, once (the beam view was opened). */
    loadTree() {
      const { snap } = store.get();
      if (snap && !snap.tree && treeAsked !== snap) {
        treeAsked = snap;
        nav('tree');
      }
    },
    /** Re-translates at the same step, with vectors, once per session that lacks them. */
    fetchVectors() {
      const { snap } = store.get();
      if (!snap || snap.vectors || vectorsAsked === snap.sid) return;
      vectorsAsked = snap.sid;
      translate({ step: keepStep(), restore: true });
    },
  };
}
