/**
 * The one identity and date every test-made commit uses, whichever helper makes it (git CLI,
 * fast-import or isomorphic-git), so equal content gives equal oids across helpers and machines.
 */
export const TEST_AUTHOR = { name: 'Forge Test', email: 'forge-test@example.invalid' } as const;

/** 2024-01-01T00:00:00Z. */
export const TEST_TIMESTAMP = 1_704_067_200;
export const TEST_DATE_ISO = '2024-01-01T00:00:00Z';
/** git's raw date format, for GIT_AUTHOR_DATE / GIT_COMMITTER_DATE. */
export const TEST_GIT_DATE = `${TEST_TIMESTAMP} +0000`;
