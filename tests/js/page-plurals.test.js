// Counts in the page's words take the noun's number: "1 candidate", "2 candidates" (the beam
// tree read "Show the 1 candidates…"). `counted` (web/app/util/html.js) is the one rule; the beam
// tree's collapsed candidates are checked as drawn.
import { expect, it } from 'vitest';
import { counted } from '../../web/app/util/html.js';
import { beamTreeSVG } from '../../web/app/views/beam.js';

it('counts one of a noun in the singular, any other number in the plural', () => {
  expect(counted(1, 'pair')).toBe('1 pair');
  expect(counted(0, 'pair')).toBe('0 pairs');
  expect(counted(2, 'pruned candidate')).toBe('2 pruned candidates');
  expect(counted(1, 'sentence', 'sentences')).toBe('1 sentence');
  expect(counted(3, 'analysis', 'analyses')).toBe('3 analyses');
});

/** A beam tree whose first step kept one candidate and pruned `pruned`. */
const tree = (pruned) => [
  { id: 0, parent: -1, step: -1, tokenId: 1, token: '<s>', logProb: 0, score: 0, status: 'live' },
  { id: 1, parent: 0, step: 0, tokenId: 5, token: 'ich', logProb: -0.1, score: -0.1, status: 'live' },
  ...Array.from({ length: pruned }, (_, i) => ({ id: 2 + i, parent: 0, step: 0, tokenId: 6 + i, token: `w${i}`, logProb: -3 - i, score: -3 - i, status: 'pruned' })),
];
const summary = (svg) => ({
  label: svg.match(/class="pruned-summary"[^>]*aria-label="([^"]*)"/)[1],
  title: svg.match(/class="pruned-summary"[\s\S]*?<title>([^<]*)<\/title>/)[1],
});

it("names the beam tree's collapsed candidates in the singular when there is one", () => {
  expect(summary(beamTreeSVG(tree(1)).svg)).toEqual({
    label: '1 pruned candidate after &lt;s&gt;: show it',
    title: 'Show the candidate that fell out of the beam after this one',
  });
  expect(summary(beamTreeSVG(tree(3)).svg)).toEqual({
    label: '3 pruned candidates after &lt;s&gt;: show them',
    title: 'Show the 3 candidates that fell out of the beam after this one',
  });
});
