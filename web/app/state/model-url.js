// ?model-url=URL: a model file served elsewhere (with CORS), named by its URL; relative URLs are
// read against the page. The page then treats it as model=URL (web/models.js findModel: on
// another origin, loaded once the reader agrees), and its own URL records the file as model=URL.
// Only an http(s) URL, a blob: URL or a relative one names a file a page may fetch: any other
// scheme (file:, data:, javascript:, …) is refused here, with a message that says so, and the
// link's model-url is dropped.

const SCHEMES = new Set(['http:', 'https:', 'blob:']);

/**
 * {search, refused}: the query string `search` with model-url=URL turned into
 * model=ABSOLUTE_URL (unchanged without it); `refused` says why a model-url was dropped (null
 * when none was).
 */
export function readModelUrl(search, base) {
  const q = new URLSearchParams(search);
  const value = q.get('model-url');
  if (value === null) return { search, refused: null };
  q.delete('model-url');
  let url = null;
  try {
    url = new URL(value, base);
  } catch {
    q.set('model', value); // said as written: no such model
    return { search: `?${q}`, refused: null };
  }
  if (!SCHEMES.has(url.protocol)) {
    return {
      search: `?${q}`,
      refused: `The link's model-url “${value}” is a ${url.protocol} URL: a page loads a model file only from an http(s) or blob: URL, or a path relative to the page.`,
    };
  }
  q.set('model', url.href);
  return { search: `?${q}`, refused: null };
}
