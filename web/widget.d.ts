// Type declarations for attnscope/widget (web/widget.js, built from web/widget/attn-scope.js).
// Importing the module registers the <attn-scope> element (in a browser; in Node it registers
// nothing and the class is never constructed).

/** What the widget shows now (read-only; for tests and tools). */
export interface AttnScopeSnapshot {
  /** Steps decoded so far. */
  readonly steps: number;
  /** The translation is finished. */
  readonly done: boolean;
  readonly source: { readonly pieces: readonly string[]; readonly ids: readonly number[] };
  readonly path: { readonly text: string };
  readonly [key: string]: unknown;
}

/** The detail of the `attn-scope:render` event, sent after every drawing. */
export interface AttnScopeRenderDetail { steps: number; done: boolean }

/**
 * `<attn-scope>`: an attention heatmap of a live translation. Attributes (all strings): model
 * (a model id, an http(s) URL or a relative URL of a .safetensors model), src (the sentence),
 * prompt (a decoder-only model's prompt, which it continues; the same as src), view (an attention site: cross | encoder | self for the transformers), layer, head (0-based, or
 * "mean"), mode (greedy | beam | sample), step (a number or "end"), beam-size, seed,
 * interventions (JSON, the JS API's `interventions` option).
 */
/** What the page's engine holds (AttnScope.engineStats()). */
export interface AttnScopeEngineStats {
  /** Open sessions: one per widget in the document (a removed widget closes its own). */
  readonly sessions: number;
  /** The URLs of the models loaded. */
  readonly models: readonly string[];
  /** Model downloads so far. */
  readonly fetches: number;
  readonly [key: string]: unknown;
}

export declare class AttnScope extends HTMLElement {
  static readonly observedAttributes: readonly string[];
  /** What the page's engine (shared by every widget) holds now. */
  static engineStats(): Promise<AttnScopeEngineStats>;
  /** The latest snapshot, or null before the first translation. */
  readonly snapshot: AttnScopeSnapshot | null;
  /** Resolves when the widget has drawn what its attributes ask for. */
  readonly ready: Promise<void>;
}

/**
 * The URL a `model` attribute that is not a model id loads: http(s) and relative URLs only;
 * throws an Error saying why for any other scheme (javascript:, data:, blob:, file:).
 */
export declare function modelFileUrl(value: string, base: string | URL): string;

declare global {
  interface HTMLElementTagNameMap {
    'attn-scope': AttnScope;
  }
  interface HTMLElementEventMap {
    'attn-scope:render': CustomEvent<AttnScopeRenderDetail>;
  }
}
