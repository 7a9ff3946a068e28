/**
 * The registry of fixture repositories. Each definition lives in its own file; add new ones here
 * and describe them in README.md.
 */
import edgeCases from './edge-cases.mjs';
import exampleApp from './example-app.mjs';

/** @type {Record<string, import('./types').FixtureDefinition>} */
export const fixtures = {
  [edgeCases.name]: edgeCases,
  [exampleApp.name]: exampleApp,
};

/** @param {string} name */
export function getFixture(name) {
  const definition = Object.hasOwn(fixtures, name) ? fixtures[name] : undefined;
  if (!definition) throw new Error(`unknown fixture ${JSON.stringify(name)}; known: ${Object.keys(fixtures).join(', ')}`);
  return definition;
}
