// The offline cache of the demo page (registered by index.html and blog.html, scope web/).
// Network first, so a reload always gets fresh files (models being retrained included); the
// cache answers when the network cannot. Installing stores the page (its two bundles, web/page.js
// and web/page-worker.js), the modules the blog's widget loads, the
// WebAssembly engine and the default model; any other model is stored when it is first loaded,
// and so is its precomputed head-importance sweep or head-ablation map (the page fetches it when the
// model is picked).
const CACHE = 'attnscope-v13';
const SHELL = [
  'index.html', 'page.js', 'page-worker.js', 'blog.html', 'models.js', 'package-files.js', 'attnscope.js', 'wasm/attnscope-wasm.js', 'wasm/attnscope-wasm.wasm',
  'app/app.css', 'app/main.js', 'app/client.js', 'app/worker.js', 'app/heatmap.js', 'app/views.js', 'app/mean-of-heads.js',
  'app/logits.js', 'app/beam.js', 'app/export.js', 'app/state.js', 'app/interventions.js', 'app/custom-weights.js', 'app/analyses.js',
  'app/importance-tab.js', 'app/sweep-pool.js', 'app/head-importance.js', 'app/html.js', 'app/sites.js', 'app/store.js', 'app/step-store.js',
  'app/requests.js', 'app/form.js', 'app/stepper.js', 'app/output-panel.js', 'app/logits-panel.js', 'app/attention-view.js',
  'app/model-view.js', 'app/beam-view.js', 'app/modified-banner.js', 'app/worker-session.js', 'app/pane-export.js', 'app/pieces.js', 'app/force-any.js', 'app/trained.js', 'app/training.js',
  'app/loss-curve.js', 'app/worker-training.js', 'app/worker-analyses.js', 'app/worker-encoder.js', 'app/architecture.js', 'app/architecture-diagram.js', 'app/architecture-panel.js', 'app/compare.js',
  'app/encoder-page.js', 'app/mask-panel.js', 'app/pattern-grid.js', 'app/shares-figure.js', 'app/ablation-map.js',
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
