/**
 * example-app: a tiny dependency-free Node project for the README demo. Its tests run with
 * `node --test` (no install step). `average([])` returns NaN on purpose and carries a TODO,
 * so a demo has an obvious small task to hand an agent.
 */

const packageJson = `{
  "name": "example-app",
  "version": "1.0.0",
  "private": true,
  "type": "module",
  "scripts": {
    "start": "node src/index.js",
    "test": "node --test"
  }
}
`;

const readmeV1 = `# example-app

A tiny calculator used by the Forge demo.

    npm test
`;

const readmeV2 = `# example-app

A tiny calculator used by the Forge demo.

    npm test
    npm start -- 19.5 3 7.25

\`npm start\` prints the total and the average of the numbers, formatted as prices.
`;

const mathJs = `/** Sum of a list of numbers. */
export function sum(values) {
  return values.reduce((total, value) => total + value, 0);
}

/** Arithmetic mean of a list of numbers. */
export function average(values) {
  // TODO: an empty list gives NaN; decide what it should return.
  return sum(values) / values.length;
}
`;

const mathTestJs = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { average, sum } from '../src/math.js';

test('sum adds every value', () => {
  assert.equal(sum([1, 2, 3]), 6);
  assert.equal(sum([]), 0);
});

test('average divides the sum by the count', () => {
  assert.equal(average([2, 4, 9]), 5);
});
`;

const indexV1 = `import { average, sum } from './math.js';

const values = process.argv.slice(2).map(Number);
console.log(\`total: \${sum(values)}\`);
console.log(\`average: \${average(values)}\`);
`;

const indexV2 = `import { formatPrice } from './format.js';
import { average, sum } from './math.js';

const values = process.argv.slice(2).map(Number);
console.log(\`total: \${formatPrice(sum(values))}\`);
console.log(\`average: \${formatPrice(average(values))}\`);
`;

const formatJs = `/** Formats a number as a price with two decimals, e.g. 3.5 -> "$3.50". */
export function formatPrice(value, currency = '$') {
  return \`\${currency}\${value.toFixed(2)}\`;
}
`;

const formatTestJs = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatPrice } from '../src/format.js';

test('formatPrice pads to two decimals', () => {
  assert.equal(formatPrice(3.5), '$3.50');
  assert.equal(formatPrice(10, '\u20ac'), '\u20ac10.00');
});
`;

/** @type {import('./types').FixtureDefinition} */
export default {
  name: 'example-app',
  description: 'A tiny dependency-free Node calculator with node:test tests, for the README demo; 2 commits',
  branch: 'main',
  author: { name: 'Example Dev', email: 'dev@example-app.invalid' },
  commits: [
    {
      date: '2024-02-01T12:00:00Z',
      message: 'Scaffold example app',
      files: [
        { path: '.gitignore', text: 'node_modules/\n' },
        { path: 'package.json', text: packageJson },
        { path: 'README.md', text: readmeV1 },
        { path: 'src/math.js', text: mathJs },
        { path: 'src/index.js', text: indexV1 },
        { path: 'test/math.test.js', text: mathTestJs },
      ],
    },
    {
      date: '2024-02-02T15:45:00Z',
      message: 'Format totals as prices',
      files: [
        { path: 'README.md', text: readmeV2 },
        { path: 'src/format.js', text: formatJs },
        { path: 'src/index.js', text: indexV2 },
        { path: 'test/format.test.js', text: formatTestJs },
      ],
    },
  ],
};
