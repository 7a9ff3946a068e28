/**
 * (No longer used by the page, which draws `diff-pieces.ts`'s pieces: these made up a hunk
 * header for every piece, so a 5,000-line new file read as fifty 100-line hunks. Kept for its
 * test until the lead removes both.)
 *
 * Cuts a file's unified diff into pieces of at most `maxLines` diff lines, each a valid patch
 * of its own (the file headers, then hunks with recomputed `@@` ranges; a long hunk is cut
 * between lines). diff2html's cost grows with the lines it draws at once (~0.4 ms a line): a
 * 15,000-line diff drawn in one call blocks the page for seconds, in pieces it never does.
 */
export function patchChunks(patch: string, maxLines: number): string[] {
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  const firstHunk = lines.findIndex((l) => l.startsWith('@@'));
  if (firstHunk === -1) return [patch];
  const header = lines.slice(0, firstHunk).join('\n') + '\n';
  const chunks: string[] = [];
  let body: string[] = [];
  let count = 0;
  // The current hunk's piece: where it starts in the old and new file, and its lines.
  let oldAt = 0;
  let newAt = 0;
  let piece: string[] = [];
  let pieceOld = 0;
  let pieceNew = 0;
  const closePiece = () => {
    if (piece.length === 0) return;
    const range = (start: number, n: number) => `${n === 0 ? start - 1 : start},${n}`;
    body.push(`@@ -${range(oldAt - pieceOld, pieceOld)} +${range(newAt - pieceNew, pieceNew)} @@`, ...piece);
    piece = [];
    pieceOld = 0;
    pieceNew = 0;
  };
  const closeChunk = () => {
    closePiece();
    if (body.length) chunks.push(header + body.join('\n') + '\n');
    body = [];
    count = 0;
  };
  for (let i = firstHunk; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('@@')) {
      closePiece();
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      // An empty range names the line before it.
      oldAt = Number(m?.[1] ?? 0) + (m?.[2] === '0' ? 1 : 0);
      newAt = Number(m?.[3] ?? 0) + (m?.[4] === '0' ? 1 : 0);
      continue;
    }
    if (line.startsWith('\\')) {
      piece.push(line); // "\ No newline at end of file" belongs to the line before it
      continue;
    }
    if (count >= maxLines) {
      closeChunk();
    }
    piece.push(line);
    count++;
    if (line[0] !== '+') (oldAt++, pieceOld++);
    if (line[0] !== '-') (newAt++, pieceNew++);
  }
  closeChunk();
  return chunks;
}
