// The Training panel's induction-heads preset on the engine's side (web/app/panels/induction.js):
// Olsson et al. 2022's experiment, a fresh 2-layer attention-only language model trained on
// in-context bigrams (walks on a random successor map of each sequence's own, made by the engine
// from a seed: web/attnscope.js successorWalks), and after every epoch the engine's induction
// scores on the fixed probes, random symbols repeated twice (Model#inductionScores). One preset trainer at a time, beside the panel's own.
//
//   inductionTrain {epochs} -> {epochs, stopped}: trains until `epochs` epochs in all (fewer when
//       paused), continuing the current run; every epoch trains on sequences drawn afresh (seed +
//       epoch), so none is memorised. Progress once per epoch (epoch 0: the untrained model):
//       {epoch, loss, updates (optimiser steps so far), seconds (training time so far), recipe,
//       scores: inductionScores(probes, symbols) (or {error})}.
//   inductionStop {forget} -> {training}: stops after the running epoch (Train continues the run);
//       forget: drops the run (the next Train starts from random weights).
// No numbers are computed here beyond adding up the epochs' seconds.
import { createTrainer, loadModel, successorWalks, trainingPresets } from '../../attnscope.js';

/**
 * The preset: the data (successorWalks options) and the training options (createTrainer). The
 * model is the engine's induction preset (a family's TrainingPreset with task "induction", the
 * 2-layer attention-only model). Only an induction head predicts these walks
 * (src/train/successor_walks.h); docs/training.md ("The induction-heads preset") has what was
 * measured, and why not repeated halves.
 */
export const INDUCTION_DATA = Object.freeze({ symbols: 24, length: 96, jump: 0.2, sequences: 256, seed: 1, probeLength: 12, probes: 4 });
// countExact false: a random walk has no exact continuation, and counting costs ~30% of an epoch.
const TRAINING = Object.freeze({ seed: 1, batchTokens: 768, countExact: false });

/** {data, model}: the data and the createTrainer options of the engine's induction preset. */
async function inductionPreset() {
  const preset = (await trainingPresets()).find((p) => p.task === 'induction');
  if (!preset) throw new Error('this engine has no induction-heads preset');
  return Object.freeze({ data: INDUCTION_DATA, model: Object.freeze({ ...preset.options, lr: preset.proposedLr, ...TRAINING }) });
}

export function inductionHandlers() {
  let current = null; // {trainer, data, recipe, seconds}

  function scoresOf(model, data) {
    try {
      return model.inductionScores(data.probes, data.symbols);
    } catch (e) {
      return { error: String(e?.message ?? e) };
    }
  }

  async function start(progress) {
    if (current) return;
    const recipe = await inductionPreset();
    const data = await successorWalks(recipe.data);
    const trainer = await createTrainer(data.pairs, recipe.model);
    current = { trainer, data, recipe, seconds: 0 };
    const initial = await loadModel(trainer.exportBytes());
    try {
      progress({ epoch: 0, loss: null, updates: 0, seconds: 0, recipe: current.recipe, scores: scoresOf(initial, data) });
    } finally {
      initial.dispose();
    }
  }

  return {
    async inductionTrain({ epochs }, progress) {
      if (!Number.isInteger(epochs) || epochs < 0) throw new Error(`epochs must be an integer >= 0, got ${epochs}`);
      if (current?.trainer.training) throw new Error('the induction preset is already training (pause it first)');
      await start(progress);
      const run = current;
      const result = await run.trainer.train({
        epochs: Math.max(0, epochs - run.trainer.epochs),
        onEpoch: async ({ model, epoch, loss, seconds, updates }) => {
          run.seconds += seconds;
          progress({ epoch, loss, updates, seconds: run.seconds, recipe: run.recipe, scores: scoresOf(model, run.data) });
          const next = await successorWalks({ ...run.recipe.data, seed: run.recipe.data.seed + epoch });
          run.trainer.setPairs(next.pairs);
        },
      });
      return { epochs: run.trainer.epochs, stopped: result.stopped };
    },

    inductionStop({ forget = false } = {}) {
      if (forget) {
        current?.trainer.dispose();
        current = null;
      } else {
        current?.trainer.stop();
      }
      return { training: !!current?.trainer.training };
    },
  };
}
