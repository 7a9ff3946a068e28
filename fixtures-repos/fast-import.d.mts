import type { FixtureDefinition, FixtureTreeEntry } from './types';

/** The tree at the definition's last commit, sorted by path bytes. Validates the definition. */
export declare function finalTree(definition: FixtureDefinition): FixtureTreeEntry[];
/** The `git fast-import --done` stream for the definition. Validates the definition. */
export declare function toFastImportStream(definition: FixtureDefinition): Buffer;
