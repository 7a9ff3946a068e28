/**
 * parseJsonBytes (issue "Safe among others", 7c): a calls file's huge strings come back as their
 * UTF-8 bytes, decoded in place; everything else as JSON.parse gives it. JSON.parse is the oracle.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonBytesError, parseJsonBytes } from '../../../src/tools/json-bytes';
import { splitUtf8Args, Utf8Text } from '../../../src/tools/utf8-text';

const encoder = new TextEncoder();

/** Compares a parse with Utf8Texts against JSON.parse's value: a Utf8Text must hold TextEncoder's bytes of the string. */
function expectSameValue(actual: unknown, expected: unknown): void {
  if (actual instanceof Utf8Text) {
    expect(typeof expected).toBe('string');
    expect(Buffer.from(actual.bytes).equals(Buffer.from(encoder.encode(expected as string)))).toBe(true);
    expect(actual.length).toBe((expected as string).length);
    expect(actual.head(7)).toBe(actual.toString().slice(0, 7));
    return;
  }
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual)).toBe(true);
    expect((actual as unknown[]).length).toBe(expected.length);
    expected.forEach((item, i) => expectSameValue((actual as unknown[])[i], item));
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    expect(Object.keys(actual as object)).toEqual(Object.keys(expected));
    for (const key of Object.keys(expected)) expectSameValue(Object.getOwnPropertyDescriptor(actual, key)?.value, Object.getOwnPropertyDescriptor(expected, key)!.value);
    return;
  }
  expect(actual).toEqual(expected);
}

const parse = (text: string, largeStringBytes: number) => parseJsonBytes(encoder.encode(text), { largeStringBytes });

describe('parseJsonBytes', () => {
  it('gives what JSON.parse gives, long strings as their UTF-8 bytes (any JSON, any threshold, any spacing)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: 'binary' })), fc.integer({ min: 0, max: 12 }), fc.constantFrom(undefined, 1, '\t'), (value, threshold, space) => {
        const text = JSON.stringify(value, null, space);
        expectSameValue(parse(text, threshold), JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('decodes every escape JSON has, and keeps raw UTF-8 as it is', () => {
    const text = String.raw`{"a": "q\" b\\ s\/ \b\f\n\r\t e\u00e9 \u4e2d \ud83d\ude00 raw é 中 😀 end", "k": 1}`;
    const parsed = parse(text, 4) as { a: Utf8Text; k: number };
    expect(parsed.a).toBeInstanceOf(Utf8Text);
    expect(parsed.a.toString()).toBe((JSON.parse(text) as { a: string }).a);
    expect(parsed.k).toBe(1);
  });

  it('writes a lone surrogate escape as U+FFFD, as TextEncoder encodes the string JSON.parse gives', () => {
    for (const text of [String.raw`["x \ud800 y"]`, String.raw`["x \udc00\ud800"]`, String.raw`["\ud83d"]`]) {
      const [value] = parse(text, 0) as [Utf8Text];
      expect(Buffer.from(value.bytes)).toEqual(Buffer.from(encoder.encode((JSON.parse(text) as string[])[0]!)));
    }
  });

  it('keeps a long object key a string, and a "__proto__" key an own property', () => {
    const key = 'k'.repeat(20);
    const parsed = parse(`{"${key}": "${'v'.repeat(20)}", "__proto__": "${'p'.repeat(20)}"}`, 8) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([key, '__proto__']);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(String(Object.getOwnPropertyDescriptor(parsed, '__proto__')!.value)).toBe('p'.repeat(20));
  });

  it.each([
    ['a raw control character', '["abc\ndef"]'],
    ['a bad escape', String.raw`["abc\qdef"]`],
    ['a bad unicode escape', String.raw`["abc\u12g4def"]`],
  ])('refuses %s in a long string', (_label, text) => {
    expect(() => parse(text, 2)).toThrow(JsonBytesError);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
  });

  it('refuses invalid JSON around a long string before changing the input', () => {
    const bytes = encoder.encode(String.raw`[{"content": "a\nb\nc\nd"}, }`);
    const copy = bytes.slice();
    expect(() => parseJsonBytes(bytes, { largeStringBytes: 2 })).toThrow(SyntaxError);
    expect(Buffer.from(bytes).equals(Buffer.from(copy))).toBe(true);
  });

  it('decodes in place: a long string is a view of the input, no copy', () => {
    const bytes = encoder.encode(JSON.stringify([{ content: 'line\n'.repeat(1000) }]));
    const [{ content }] = parseJsonBytes(bytes, { largeStringBytes: 100 }) as [{ content: Utf8Text }];
    expect(content.bytes.buffer).toBe(bytes.buffer);
    expect(content.toString()).toBe('line\n'.repeat(1000));
  });
});

describe('splitUtf8Args', () => {
  it('sets the declared fields\' bytes aside with a preview, and decodes every other Utf8Text', () => {
    const big = new Utf8Text(encoder.encode('é'.repeat(600)));
    const other = new Utf8Text(encoder.encode('other'));
    const { args, bytes } = splitUtf8Args({ path: 'p', content: big, nested: { note: other }, list: [other] }, ['content']);
    expect(bytes.get('content')).toBe(big.bytes);
    expect(args).toEqual({ path: 'p', content: `${'é'.repeat(512)}… [1200 bytes in all]`, nested: { note: 'other' }, list: ['other'] });
    expect(splitUtf8Args({ content: big }, []).args).toEqual({ content: 'é'.repeat(600) });
  });
});
