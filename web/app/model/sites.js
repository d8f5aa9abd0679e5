// The attention sites of a model, as the engine describes them (web/attnscope.js
// `model.info.sites`, the model family's table): in the engine's order, each {name, label,
// queries: 'source'|'target', keys: 'source'|'target', layers, heads, perStep, skip,
// customWeights, copiedBySourceEncoding, queryKeyValues}; an RNN has one site, a model without
// attention none. Everything on the page (views, pickers, tabs, URL state, the "Break the model"
// panel, the widget, the worker) iterates over that table; no list of site names is written
// anywhere in web/. What a site is *for* is read from its roles (what its queries and keys are),
// never from its name.

/** The site called `name`, or undefined. */
export const siteNamed = (sites, name) => sites?.find((s) => s.name === name);

/** The site with these roles ({queries, keys, perStep}, any subset), or undefined. */
export const siteWith = (sites, roles) => sites?.find((s) => Object.entries(roles).every(([k, v]) => s[k] === v));

/**
 * The site the page opens on: the first one where generated tokens look at the source (the
 * alignment the attention papers are about); else the first per-step site; else the first.
 */
export function mainSite(sites) {
  return siteWith(sites, { queries: 'target', keys: 'source' }) ?? siteWith(sites, { perStep: true }) ?? sites?.[0];
}

/** The sites in the order of the page's tabs: the main one first, then the table's order. */
export function tabOrder(sites) {
  const main = mainSite(sites);
  return main ? [main, ...sites.filter((s) => s !== main)] : [];
}

/** "Encoder self", "Decoder self", "Cross": the label without "-attention". */
export const shortLabel = (site) => site.label.replace(/-attention$/, '');

// What interventions may do to a site is the engine's to say: its table carries it (skip,
// customWeights, copiedBySourceEncoding), so these read it and re-derive nothing.

/** Custom weights cannot fit it: its keys grow with every step (the engine's customWeights). */
export const growsWithSteps = (site) => !site.customWeights;

/** The engine's name of the skip that switches this site's sub-layer off (DecodeOptions.skip). */
export const skipOf = (site) => site.skip;

/** Whether "copy the source encoding into the decoder" replaces this site's output. */
export const copiedBySourceEncoding = (site) => site.copiedBySourceEncoding === true;

/**
 * Whether the engine records this site's queries, keys and values (model.info.sites
 * queryKeyValues): only then do ‖α·f(x)‖ and the Q·Kᵀ row apply (an RNN's one score has none).
 */
export const hasQueryKeyValues = (site) => site?.queryKeyValues === true;

/** The site whose heads the engine classifies by pattern (Session.encoderPatterns). */
export const patternSite = (sites) => siteWith(sites, { perStep: false, queries: 'source', keys: 'source' });

/**
 * The site whose heads the engine classifies by pattern on this snapshot: the encoder's
 * self-attention (Session.encoderPatterns), or a prompt's context map (Session.promptPatterns:
 * a decoder-only model, snap.input 'prompt').
 */
export const classifiedSite = (sites, input) => patternSite(sites)
  ?? (input === 'prompt' ? siteWith(sites, { perStep: true, queries: 'target', keys: 'target' }) : undefined);

/**
 * Whether the page offers ‖α·f(x)‖ and the Q·Kᵀ row of `site` in a session whose text is `input`
 * (info.input): the site's q, k and v (hasQueryKeyValues), and not a prompt's context, whose
 * first step holds a row per prompt position where these views draw one query a step.
 */
export const vectorsOffered = (site, input) => hasQueryKeyValues(site) && input !== 'prompt';
