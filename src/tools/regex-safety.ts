/**
 * The project's one rule for regular expressions run on input a model or a repository controls:
 * JavaScript regexes backtrack and cannot be interrupted, so a nested quantifier such as (a+)+
 * can take exponential time on one long string and stall the whole process. safe-regex2 refuses
 * a star height above one (and an invalid pattern).
 */
import safeRegex from 'safe-regex2';

export function isSafeRegex(pattern: string | RegExp): boolean {
  return safeRegex(pattern);
}
