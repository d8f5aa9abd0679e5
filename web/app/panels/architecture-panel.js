// The loaded model's architecture on the page: its description in words and its diagram
// (the engine's family describes it, web/app/views/architecture-diagram.js draws it). Used by the
// Architecture card and by each pane of the compare view.
import { describeArchitecture } from '../model/architecture.js';
import { architectureSVG } from '../views/architecture-diagram.js';

/**
 * Fills `el` with the architecture of the model `info` describes (the worker's 'load' answer):
 * a paragraph `.arch-words` and the diagram `.arch-diagram` (skipped with `words` only).
 */
export function renderArchitecture(el, info, { diagram = true, name = '' } = {}) {
  const arch = describeArchitecture(info);
  const key = JSON.stringify([arch, diagram]);
  if (el.dataset.archKey === key) return;
  el.dataset.archKey = key;
  const words = document.createElement('p');
  words.className = 'arch-words';
  words.textContent = arch.words;
  if (!diagram) {
    el.replaceChildren(words);
    return;
  }
  const figure = document.createElement('div');
  figure.className = 'arch-diagram';
  figure.append(architectureSVG(arch, `${arch.family}${name ? ` (${name})` : ''}: ${arch.blocks.map((b) => b.label).join(', ')}`));
  el.replaceChildren(words, figure);
}
