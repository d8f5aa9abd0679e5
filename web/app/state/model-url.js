// ?model-url=URL: a model file served elsewhere (with CORS), named by its URL; relative URLs are
// read against the page. The page then treats it as model=URL (web/models.js findModel: on
// another origin, loaded once the reader agrees), and its own URL records the file as model=URL.

/** The query string `search` with model-url=URL turned into model=ABSOLUTE_URL (unchanged without it). */
export function withModelUrl(search, base) {
  const q = new URLSearchParams(search);
  const value = q.get('model-url');
  if (value === null) return search;
  q.delete('model-url');
  try {
    q.set('model', new URL(value, base).href);
  } catch {
    q.set('model', value); // said as written: no such model
  }
  return `?${q}`;
}
