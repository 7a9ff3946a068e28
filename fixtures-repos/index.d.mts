import type { FixtureDefinition } from './types';

export type FixtureName = 'edge-cases' | 'example-app';
export declare const fixtures: Record<FixtureName, FixtureDefinition>;
export declare function getFixture(name: FixtureName): FixtureDefinition;
