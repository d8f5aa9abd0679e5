// ?model-url=URL of the demo page (web/app/state/model-url.js): an http(s), blob: or relative URL
// becomes the page's model=ABSOLUTE_URL; any other scheme is dropped, with a message naming it.
import { describe, expect, it } from 'vitest';
import { readModelUrl } from '../../web/app/state/model-url.js';

const PAGE = 'http://127.0.0.1:8080/web/index.html?s=x';
const read = (value, extra = 's=hello') => readModelUrl(`?${extra}&${new URLSearchParams({ 'model-url': value })}`, PAGE);

describe('readModelUrl', () => {
  it('takes http(s), blob: and relative URLs, made absolute', () => {
    for (const [value, model] of [
      ['https://example.org/m.safetensors', 'https://example.org/m.safetensors'],
      ['http://127.0.0.1:9000/a b.safetensors', 'http://127.0.0.1:9000/a%20b.safetensors'],
      ['blob:http://127.0.0.1:8080/2f0c', 'blob:http://127.0.0.1:8080/2f0c'],
      ['../models/toy-en-de.safetensors', 'http://127.0.0.1:8080/models/toy-en-de.safetensors'],
      ['/models/x.safetensors', 'http://127.0.0.1:8080/models/x.safetensors'],
    ]) {
      const { search, refused } = read(value);
      const q = new URLSearchParams(search);
      expect([value, q.get('model'), q.get('model-url'), q.get('s'), refused]).toEqual([value, model, null, 'hello', null]);
    }
  });

  it('refuses every other scheme, naming it, and drops the parameter', () => {
    for (const [value, scheme] of [['file:///etc/passwd', 'file:'], ['FILE:///etc/passwd', 'file:'], ['javascript:alert(1)', 'javascript:'],
      ['data:application/octet-stream;base64,AAAA', 'data:'], ['ftp://example.org/m.safetensors', 'ftp:'], ['chrome://settings', 'chrome:']]) {
      const { search, refused } = read(value);
      const q = new URLSearchParams(search);
      expect([value, q.get('model'), q.get('model-url'), q.get('s')]).toEqual([value, null, null, 'hello']);
      expect(refused).toContain(`model-url “${value}” is a ${scheme} URL`);
      expect(refused).toMatch(/only from an http\(s\) or blob: URL, or a path relative to the page/);
    }
  });

  it('leaves a query without model-url as it is', () => {
    expect(readModelUrl('?s=a&model=toy-en-de', PAGE)).toEqual({ search: '?s=a&model=toy-en-de', refused: null });
  });
});
