// Which model-wide interventions a model takes, as the engine says (model.info
// refusedInterventions: the option names its family refuses, src/model/interventions.h
// InterventionSupport). The page offers only these; nothing here decides it.

/**
 * Whether the model of `info` takes `option` ('maskHeads', a skip name such as 'ffn',
 * 'copySourceEncoding', 'lastSourceState'). Without a model's info yet: offered.
 */
export const takes = (info, option) => !(info?.refusedInterventions ?? []).includes(option);

/** Whether the model has a decoder (an encoder-only model has nothing to translate). */
export const hasDecoder = (info) => info?.hasDecoder !== false;

/** Whether the model has an encoder (a decoder-only model has none, and no source encoding to replace). */
export const hasEncoder = (info) => info?.hasEncoder !== false;
