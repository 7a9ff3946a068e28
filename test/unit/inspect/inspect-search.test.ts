/** The page's session search takes the patterns a person types: refused, with INVALID_ARGUMENT, before any is run when invalid or exponential. */
import { describe, expect, it } from 'vitest';
import type { Repository } from '../../../src/git';
import { searchView } from '../../../src/inspect/review';

// The refusals come before the repository is read: an object that is not one proves it.
const noRepository = {} as Repository;

describe('searchView', () => {
  it('refuses an invalid pattern, a nested quantifier and a date it cannot read', () => {
    expect(() => searchView(noRepository, { grep: '(' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => searchView(noRepository, { grep: '(a+)+$' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('exponential') }));
    expect(() => searchView(noRepository, { author: '(x*)*' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => searchView(noRepository, { since: 'last blue moon' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
