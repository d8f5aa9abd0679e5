// "Force any token": a type-ahead search over the model's target vocabulary (not only the ten
// bars), for the logits card. The vocabulary comes from the engine once per model (the worker's
// 'vocab'); picking a token forces it at the current step, as clicking a bar does.
import { byId as $ } from '../util/html.js';

const MAX = 12;

/** The vocabulary entries matching `query`: prefix matches first (▁ ignored), then the rest. */
export function matchTokens(vocab, query) {
  const q = query.trim().toLowerCase().replace(/^▁/, '');
  if (!q) return [];
  const starts = [];
  const contains = [];
  for (let id = 0; id < vocab.length; id++) {
    const t = vocab[id].toLowerCase().replace(/^▁/, '');
    if (t.startsWith(q)) starts.push(id);
    else if (contains.length < MAX && t.includes(q)) contains.push(id);
  }
  starts.sort((a, b) => vocab[a].length - vocab[b].length || a - b);
  return [...starts, ...contains].slice(0, MAX);
}

/**
 * Wires the input and its list; vocab() resolves to the target vocabulary; onForce(id);
 * label(piece): a token as the page shows it.
 */
export function wireForceAny({ vocab, onForce, enabled, label = (p) => p }) {
  const input = $('force-input');
  const list = $('force-list');
  let words = [];
  let ids = [];
  let active = 0;
  const close = () => {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  };
  const pick = (id) => {
    close();
    input.value = '';
    onForce(id);
  };
  const draw = () => {
    list.replaceChildren(...ids.map((id, i) => {
      const li = document.createElement('li');
      li.id = `force-opt-${i}`;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', String(i === active));
      li.dataset.token = words[id];
      li.dataset.id = id;
      li.textContent = label(words[id]);
      li.addEventListener('mousedown', (e) => { e.preventDefault(); pick(id); });
      return li;
    }));
    list.hidden = ids.length === 0;
    input.setAttribute('aria-expanded', String(!list.hidden));
    if (ids.length) input.setAttribute('aria-activedescendant', `force-opt-${active}`);
  };
  input.addEventListener('input', async () => {
    const query = input.value;
    words = await vocab();
    if (input.value !== query) return; // typed on meanwhile
    ids = matchTokens(words, query);
    active = 0;
    draw();
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!ids.length) return;
      active = (active + (e.key === 'ArrowDown' ? 1 : ids.length - 1)) % ids.length;
      draw();
    } else if (e.key === 'Enter') {
      if (ids.length && enabled()) pick(ids[active]);
    } else if (e.key === 'Escape') {
      close();
    } else {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
  });
  input.addEventListener('blur', close);
}
