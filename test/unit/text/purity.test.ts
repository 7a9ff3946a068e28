import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const TEXT_DIR = join(import.meta.dirname, '../../../src/text');

describe('src/text stays pure', () => {
  it('imports no node:* module, no Node built-in and nothing from the I/O layers', () => {
    const files = readdirSync(TEXT_DIR).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    const offenders: string[] = [];
    for (const file of files) {
      const source = readFileSync(join(TEXT_DIR, file), 'utf8');
      for (const m of source.matchAll(/(?:from|import|require\()\s*['"]([^'"]+)['"]/g)) {
        const spec = m[1];
        const allowed = spec.startsWith('./') || spec === '../errors' || spec === 'diff';
        if (!allowed) offenders.push(`${file}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
