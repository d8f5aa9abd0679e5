// attnscope: the JavaScript API over the WebAssembly engine.
//
//   import { loadModel } from 'attnscope';
//   const model = await loadModel('models/toy-en-de.safetensors');
//   const session = model.translate('i can eat apple');
//   session.run();
//   console.log(session.translation);        // "ich konnen apfel essen"
//   session.dispose(); model.dispose();
//
// Works in browsers (streaming instantiation), Web Workers and Node >= 20. Every array this
// module returns is a copy owned by JavaScript: no later call can change or invalidate it.
// Errors from the engine arrive as AttnscopeError (a subclass of Error) with its message.
//
// The package's entry point: the API lives in web/api/, one module per job (runtime, download,
// model, session, trainer, corpora; arguments: the checks they share).

export { AttnscopeError, init } from './api/runtime.js';
export { bleuByLength, heapInUse, repeatedSequences, successorWalks } from './api/corpora.js';
export { Model, loadModel } from './api/model.js';
export { Session } from './api/session.js';
export { TRAIN_LIMITS, Trainer, createTrainer, trainingPresets } from './api/trainer.js';
