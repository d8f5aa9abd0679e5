// The stepper of the demo page: where the decoding is (step, beam, finished), the first / back /
// next / end buttons, and Play, which presses Next every 650 ms until the end.
import { byId as $, setProp, setText } from '../util/html.js';

const PLAY = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 2v12l10-6z"/></svg><span>Play</span>';
const PAUSE = '<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z"/></svg><span>Pause</span>';

/** The status line and the buttons' states for `snap`. */
export function renderStepper(snap) {
  const beam = snap.options?.strategy === 'beam';
  const parts = [`Step ${snap.steps} of at most ${snap.maxLength}`];
  if (beam) parts.push(`${snap.live.length} in the beam, ${snap.finished.length} finished`);
  if (snap.done) parts.push(snap.hitMaxLength ? 'stopped at the length limit' : 'finished');
  else if (snap.steps === 0) parts.push('press Next (→) to generate the first token');
  setText($('step-status'), parts.join(' · '));
  for (const id of ['first', 'prev']) setProp($(id), 'disabled', snap.steps === 0);
  for (const id of ['next', 'last']) setProp($(id), 'disabled', snap.done);
}

/**
 * Keeps the stepper's height in the page's --stepper-height: the stepper sticks to the top of the
 * window, and what must stay visible under it (the attention card's tabs, a scrolled-to target)
 * sits that far down (app.css).
 */
export function trackStepperHeight() {
  const bar = $('stepper');
  const set = () => document.documentElement.style.setProperty('--stepper-height', `${bar.offsetHeight}px`);
  new ResizeObserver(set).observe(bar);
  set();
}

/** Play / pause. store: the page store; requests: web/app/worker/requests.js. */
export function createPlayer({ store, requests }) {
  let timer = null;
  const button = $('play');
  const stop = () => {
    if (!timer) return;
    clearInterval(timer);
    timer = null;
    button.innerHTML = PLAY;
    button.setAttribute('aria-label', 'Play');
  };
  const start = () => {
    const { snap } = store.get();
    if (!snap) return;
    if (snap.done) requests.nav('goto', { step: 0 });
    timer = setInterval(() => {
      const now = store.get().snap;
      if (!now || (now.done && requests.pending === 0)) stop();
      else if (requests.pending === 0) requests.next();
    }, 650);
    button.innerHTML = PAUSE;
    button.setAttribute('aria-label', 'Pause');
  };
  return { start, stop, get playing() { return timer !== null; } };
}
