import { describe, expect, it } from 'vitest';
import { isValidRefName, refNameProblem } from '../../../src/git';
import { INVALID_REF_NAMES, VALID_REF_NAMES } from './ref-name-cases';

describe('refNameProblem', () => {
  it.each(VALID_REF_NAMES)('accepts %j', (name) => {
    expect(refNameProblem(name)).toBeNull();
    expect(isValidRefName(name)).toBe(true);
  });

  it.each(INVALID_REF_NAMES)('rejects %j with a reason', (name) => {
    expect(refNameProblem(name)).toEqual(expect.any(String));
    expect(isValidRefName(name)).toBe(false);
  });
});
