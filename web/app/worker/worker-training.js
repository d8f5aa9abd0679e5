// The Training panel's side of the engine's worker (web/app/worker/worker.js): one trainer at a time
// (web/attnscope.js createTrainer), trained epoch by epoch between the worker's other requests
// (Trainer.train yields after every epoch, so the page's views keep answering), and the model it
// made registered under its recipe's name (web/app/state/trained.js) for every view.
//
//   trainingPresets {} -> the engine's training presets (web/attnscope.js trainingPresets): the
//          architectures the panel offers, a recipe's `arch` one's id (web/app/state/trained.js)
//   train  {pairs, recipe {arch, layers, heads, dModel, seed, lr}, custom, epochs, stopAtExact, sentence}
//          -> {id, epochs, stopped, exact, total}: trains until `epochs` epochs in all (fewer when
//          paused, or when every pair is exact and stopAtExact). The same pairs and recipe continue
//          the current trainer; others start a new one. Progress, once per epoch (epoch 0: the
//          untrained model): {epoch, loss, exact, total, seconds, attention: greedyAttention of
//          `sentence` (or {error})}. `custom`: the pairs are not the toy grammar (their hash goes
//          into the name).
//   trainPause {}  trainReset {}  trainExport {} -> the current weights' .safetensors bytes
//   trainAttention {sentence} -> greedyAttention of the current weights (another watched sentence)
//   inductionTrain, inductionStop: the induction-heads preset (worker-induction.js)
// No numbers are computed here: losses, counts and attention come from web/attnscope.js.
import { createTrainer, loadModel, trainingPresets } from '../../attnscope.js';
import { normalizePairs, trainedId, trainerOptions } from '../state/trained.js';
import { greedyAttention } from './worker-session.js';
import { inductionHandlers } from './worker-induction.js';

/** `register(id, model)`: puts a finished model into the worker's model table under `id`. */
export function trainingHandlers(register) {
  let current = null; // {key, trainer, recipe, pairs (normalized), custom}
  let presets = null;  // promise of the engine's training presets

  // The panel's: those that train on sentence pairs.
  function knownPresets() {
    presets ??= trainingPresets().then((all) => all.filter((p) => p.task === 'pairs'));
    presets.catch(() => { presets = null; }); // asked again next time
    return presets;
  }

  function attentionOf(model, sentence) {
    try {
      return greedyAttention(model, sentence);
    } catch (e) {
      return { error: String(e?.message ?? e) };
    }
  }

  async function start({ pairs, recipe, custom }, sentence, progress) {
    const normalized = normalizePairs(pairs);
    const key = JSON.stringify([normalized, recipe]);
    if (current?.key === key) return;
    current?.trainer.dispose();
    current = null;
    const trainer = await createTrainer(normalized, trainerOptions(recipe, await knownPresets()));
    current = { key, trainer, recipe, pairs: normalized, custom: !!custom };
    // Epoch 0: the model before any update (its random attention).
    const initial = await loadModel(trainer.exportBytes());
    try {
      progress({ epoch: 0, loss: null, exact: null, total: null, seconds: 0, attention: attentionOf(initial, sentence) });
    } finally {
      initial.dispose();
    }
  }

  return {
    ...inductionHandlers(), // the induction-heads preset (its own trainer)

    trainingPresets: () => knownPresets(),

    async train(args, progress) {
      const { epochs, stopAtExact = false, sentence = '' } = args;
      if (!Number.isInteger(epochs) || epochs < 0) throw new Error(`epochs must be an integer >= 0, got ${epochs}`);
      if (current?.trainer.training) throw new Error('the model is already training (pause it first)');
      await start(args, sentence, progress);
      const { trainer, recipe, pairs, custom } = current;
      const result = await trainer.train({
        epochs: Math.max(0, epochs - trainer.epochs),
        onEpoch: (r) => {
          const { model, ...report } = r;
          progress({ ...report, attention: attentionOf(model, sentence) });
          if (stopAtExact && r.exact === r.total) trainer.stop();
        },
      });
      const id = trainedId({ ...recipe, epochs: trainer.epochs }, custom ? pairs : null);
      await register(id, () => loadModel(trainer.exportBytes()));
      return { id, epochs: trainer.epochs, stopped: result.stopped, exact: result.last?.exact ?? null, total: result.last?.total ?? null };
    },

    trainPause() {
      current?.trainer.stop();
      return { paused: !!current?.trainer.training };
    },

    trainReset() {
      current?.trainer.dispose();
      current = null;
      return { reset: true };
    },

    trainAttention({ sentence }) {
      const model = current?.trainer.model;
      if (!model) throw new Error('nothing trained yet: press Train or One epoch first');
      return greedyAttention(model, sentence);
    },

    trainExport() {
      if (!current) throw new Error('nothing trained yet: press Train or One epoch first');
      return current.trainer.exportBytes();
    },
  };
}
