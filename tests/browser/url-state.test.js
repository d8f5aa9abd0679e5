// What the reader did to the decoding survives a reload and a shared link: forced tokens
// (&force=STEP:TOKEN) and the followed beam hypothesis (&hyp=N, or &path=IDS for a path that is
// not an n-best entry). Reference translations come from the engine run in Node.
import { expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, openPage, screenshot } from './browser.js';
import { browserWithModel } from './with-model.js';

const SENTENCE = 'i can eat apple';
const t = browserWithModel('models/toy-en-de.safetensors');

const outputs = (page) => page.locator('#lines li .out').allTextContents();
const params = (page) => new URL(page.url()).searchParams;

it('keeps a forced token in the URL: a reload and a shared link decode with it', async () => {
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 2 })}`);
  expect(await outputs(page)).toEqual(['ich', 'konnen']);
  await page.locator('#bars button.bar[data-token="lesen"]').click();
  await idle(page);
  expect(params(page).getAll('force')).toEqual(['1:lesen']);
  await page.click('#last');
  await idle(page);
  const s = t.model.translate(SENTENCE);
  s.step();
  s.force('lesen');
  s.run();
  expect(await page.textContent('#translation')).toBe(s.translation);
  expect(s.translation).not.toBe('ich konnen apfel essen');

  await page.reload();
  await idle(page);
  expect(await page.textContent('#translation')).toBe(s.translation);
  expect((await outputs(page))[1]).toBe('lesen');
  expect(await page.locator('#lines li').nth(1).locator('.badge').textContent()).toBe('forced');
  expect(params(page).getAll('force')).toEqual(['1:lesen']);
  // Back before the forced step and forward again: still forced (the URL keeps it all along).
  await page.click('#first');
  await idle(page);
  expect(params(page).getAll('force')).toEqual(['1:lesen']);
  await page.click('#last');
  await idle(page);
  expect(await page.textContent('#translation')).toBe(s.translation);
  await screenshot(page, 'url-state-forced', { fullPage: false });
  // A new sentence starts clean.
  await page.fill('#sentence', 'we can eat bread');
  await page.click('#translate');
  await idle(page);
  expect(params(page).getAll('force')).toEqual([]);
  s.dispose();
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the followed beam hypothesis in the URL across a reload', async () => {
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), s: SENTENCE, mode: 'beam', beam: 3, step: 'end', view: 'beam' })}`);
  const s = t.model.translate(SENTENCE, { strategy: 'beam', beamSize: 3, nbest: 3 });
  s.run();
  const nbest = s.nbest();
  expect(params(page).get('hyp')).toBeNull();
  await page.locator('.hyps.nbest button.hyp').nth(1).click();
  await idle(page);
  expect(await page.textContent('#translation')).toBe(nbest[1].text);
  expect(params(page).get('hyp')).toBe('1');

  await page.reload();
  await idle(page);
  expect(await page.textContent('#translation')).toBe(nbest[1].text);
  expect(await page.locator('.hyps.nbest button.hyp').nth(1).getAttribute('class')).toContain('selected');
  expect(params(page).get('hyp')).toBe('1');
  await screenshot(page, 'url-state-hyp', { fullPage: false });
  s.dispose();
  expect(errors).toEqual([]);
  await page.close();
});

it('round-trips forced tokens and the followed hypothesis through the URL codec', () => {
  const state = { ...parseState(''), s: SENTENCE, mode: 'beam', forced: [{ step: 1, token: 'lesen', hypothesis: 0 }, { step: 3, token: '▁mit:x', hypothesis: 2 }], hyp: 1 };
  const query = formatState(state);
  expect(new URLSearchParams(query).getAll('force')).toEqual(['1:lesen', '3.2:▁mit:x']);
  expect(new URLSearchParams(query).get('hyp')).toBe('1');
  expect(parseState(query)).toEqual(state);
  const path = { ...parseState(''), s: SENTENCE, path: [4, 7, 2] };
  expect(new URLSearchParams(formatState(path)).get('path')).toBe('4_7_2');
  expect(parseState(formatState(path))).toEqual(path);
  // Nonsense is dropped, not guessed at.
  expect(parseState('?force=x:lesen&force=2&hyp=-1&path=1_a').forced).toEqual([]);
  expect(parseState('?hyp=-1').hyp).toBeNull();
  expect(parseState('?path=1_a').path).toBeNull();
});
