/**
 * Writes `JSON.stringify({...head, [key]: items}) + '\n'` to stdout a piece at a time: the same
 * bytes, without the whole document as one string (a 10,000-call `forge turn --json` held its
 * results twice over: the mapped array and its string).
 */
export function writeJsonWithArray(head: Record<string, unknown>, key: string, items: readonly unknown[], item: (value: unknown) => unknown): void {
  const opening = JSON.stringify({ ...head, [key]: [] });
  // '{..."key":[]}': the array's items go between its brackets.
  let chunk = opening.slice(0, -2);
  items.forEach((value, i) => {
    chunk += (i > 0 ? ',' : '') + (JSON.stringify(item(value)) ?? 'null');
    if (chunk.length >= CHUNK_CHARS) {
      process.stdout.write(chunk);
      chunk = '';
    }
  });
  process.stdout.write(`${chunk}]}\n`);
}

const CHUNK_CHARS = 1 << 16;
