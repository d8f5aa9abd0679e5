// The offline cache of the demo page (registered by index.html and blog.html, scope web/).
// Network first, so a reload always gets fresh files (models being retrained included); the
// cache answers when the network cannot. Installing stores the page (its two bundles, web/page.js
// and web/page-worker.js), the modules the blog's widget loads, the
// WebAssembly engine and the default model; any other model is stored when it is first loaded,
// and so is its precomputed head-importance sweep or head-ablation map (the page fetches it when the
// model is picked).
const CACHE = 'attnscope-v23';
const SHELL = [
  'index.html', 'page.js', 'page-worker.js', 'blog.html', 'models.js', 'package-files.js', 'attnscope.js', 'model-header.js', 'wasm/attnscope-wasm.js', 'wasm/attnscope-wasm.wasm',
  'api/runtime.js', 'api/arguments.js', 'api/download.js', 'api/model.js', 'api/session.js', 'api/trainer.js',
  'api/corpora.js',
  'app/app.css', 'app/main.js',
  'app/views/heatmap.js', 'app/views/heatmap-layout.js', 'app/views/heatmap-paint.js', 'app/views/heatmap-svg.js',
  'app/views/colour-scale.js', 'app/views/views.js', 'app/views/mean-of-heads.js', 'app/views/logits.js',
  'app/views/beam.js', 'app/views/head-importance.js', 'app/views/attention-view.js',
  'app/views/model-view.js', 'app/views/beam-view.js', 'app/views/pane-export.js', 'app/views/loss-curve.js',
  'app/views/architecture-diagram.js', 'app/views/pattern-grid.js', 'app/views/shares-figure.js',
  'app/views/ablation-map.js', 'app/views/bleu-length-chart.js', 'app/views/saliency-strip.js',
  'app/views/saliency-agreement.js', 'app/views/logit-lens.js', 'app/views/half-loss-curves.js', 'app/views/head-score-grid.js',
  'app/panels/interventions.js', 'app/panels/custom-weights.js', 'app/panels/analyses.js',
  'app/panels/importance-tab.js', 'app/panels/form.js', 'app/panels/stepper.js',
  'app/panels/output-panel.js', 'app/panels/logits-panel.js', 'app/panels/modified-banner.js',
  'app/panels/force-any.js', 'app/panels/training.js', 'app/panels/architecture-panel.js',
  'app/panels/compare.js', 'app/panels/encoder-page.js', 'app/panels/mask-panel.js', 'app/panels/mask-attribution.js',
  'app/panels/encoder-analyses.js', 'app/panels/bleu-by-length.js', 'app/panels/open-model.js', 'app/panels/model-card.js',
  'app/panels/prompt-mode.js', 'app/panels/attribution.js', 'app/panels/logit-lens.js', 'app/panels/induction.js',
  'app/worker/client.js', 'app/worker/worker.js', 'app/worker/sweep-pool.js', 'app/worker/requests.js',
  'app/worker/worker-session.js', 'app/worker/worker-training.js', 'app/worker/worker-analyses.js',
  'app/worker/worker-encoder.js', 'app/worker/worker-induction.js', 'app/worker/attribution-timing.js',
  'app/state/state.js', 'app/state/store.js', 'app/state/step-store.js', 'app/state/trained.js', 'app/state/model-url.js',
  'app/model/sites.js', 'app/model/architecture.js', 'app/model/support.js',
  'app/util/export.js', 'app/util/data-export.js', 'app/util/html.js', 'app/util/pieces.js',
  'widget/attn-scope.js', 'data/toy-en-de.csv',
  '../models/toy-en-de.safetensors',
];

self.addEventListener('install', (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(SHELL.map((p) => new Request(new URL(p, self.registration.scope), { cache: 'reload' })));
    await self.skipWaiting();
  })());
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key.startsWith('attnscope-') && key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

/** Cache key: the URL without its query (the page's state lives there) and without a fragment. */
function keyOf(request) {
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  if (request.mode === 'navigate' && url.pathname.endsWith('/')) url.pathname += 'index.html';
  return url.href;
}

async function networkFirst(request) {
  const key = keyOf(request);
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic' && !response.redirected) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(key, copy)).catch(() => {});
    }
    return response;
  } catch (error) {
    const cached = await caches.match(key);
    if (cached) return cached;
    throw error;
  }
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(networkFirst(request));
});
