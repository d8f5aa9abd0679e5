// The demo page's state, in one place: the URL state (web/app/state/state.js), the snapshot of the
// session on screen (web/app/state/step-store.js), the model's info and the unmodified translation
// shown beside a modified one. Panels read it and subscribe to it; only the page's requests
// (web/app/worker/requests.js) and its controls change it, through set().

/**
 * A store: get() the state, set(patch) a shallow change, subscribe(fn(state, changed, before))
 * to changes (changed: the set of top-level keys that changed; before: the state before).
 */
export function createStore(initial) {
  let state = Object.freeze({ ...initial });
  const subscribers = new Set();
  return {
    get: () => state,
    set(patch) {
      const changed = Object.keys(patch).filter((k) => patch[k] !== state[k]);
      if (!changed.length) return;
      const before = state;
      state = Object.freeze({ ...state, ...patch });
      for (const fn of subscribers) fn(state, new Set(changed), before);
    },
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
  };
}

/** The page's store: st (URL state), snap (what is on screen), info (the model's), original. */
export function pageStore(st) {
  const store = createStore({ st, snap: null, info: null, original: null });
  /** Changes part of the URL state (a view, a layer, a head…). */
  store.setState = (changes) => store.set({ st: { ...store.get().st, ...changes } });
  return store;
}
