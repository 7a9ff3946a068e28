/** Ref names judged by refNameProblem (unit) and by `git check-ref-format` (test/integration/git-oracle.test.ts). */
export const VALID_REF_NAMES = ['refs/heads/main', 'refs/heads/forge/session/abc-123', 'refs/tags/v1.0', 'refs/heads/a.b', 'refs/heads/caf\u00e9', 'refs/heads/a@b', 'refs/heads/x-.y'];
export const INVALID_REF_NAMES = [
  '',
  '@',
  '/refs/heads/a',
  'refs/heads/a/',
  'refs/heads/a.',
  'refs//heads',
  'refs/heads/a..b',
  'refs/heads/a@{1}',
  'refs/heads/a b',
  'refs/heads/a~1',
  'refs/heads/a^',
  'refs/heads/a:b',
  'refs/heads/a?',
  'refs/heads/a*',
  'refs/heads/a[b',
  'refs/heads/a\\b',
  'refs/heads/.hidden',
  'refs/heads/a.lock',
  'refs/heads/a.lock/b',
  'refs/heads/tab\tname',
  'refs/heads/del\x7f',
];

