/**
 * What a recovered match tolerated and what it adjusted, in phrases a model can act on (they go
 * into the Edit and Patch results, structured and as notes).
 */
import type { FuzzyAdjustment } from './fuzzy-match';
import { leadingWhitespace } from './reindent';
import { trailingWhitespace } from './indent-units';

type Facts = Omit<FuzzyAdjustment, 'adjusted' | 'description'>;

export function describeAdjustment(f: Facts): string[] {
  const parts: string[] = [];
  if (f.level === 'exact_after_indentation') {
    parts.push(
      `old text begins after the line's indentation ${JSON.stringify(f.indentTo.slice(0, f.indentTo.length - f.indentFrom.length))}; ` +
        'the following lines of the new text were given that indentation too',
    );
    return parts;
  }
  const endDiffers = f.pairs.filter((p) => trailingWhitespace(p.given) !== trailingWhitespace(p.file)).length;
  if (endDiffers > 0) parts.push(`ignored whitespace at the end of ${endDiffers} line(s)`);
  const lineLevel = f.level === 'boundary_lines' ? f.lineLevel : f.level;
  if (lineLevel === 'tabs_spaces') {
    parts.push(`tabs and spaces treated as equivalent (tab width ${f.tabWidth}); the new text's indentation was written in the file's own unit`);
  } else if (f.indentFrom !== f.indentTo) {
    parts.push(`indentation shifted: the file has ${JSON.stringify(f.indentTo)} where the old text had ${JSON.stringify(f.indentFrom)}; the new text was re-indented the same way`);
  } else if (f.pairs.some((p) => leadingWhitespace(p.given) !== leadingWhitespace(p.file))) {
    parts.push('indentation differs');
  }
  if (f.dropLeadingBlank > 0) parts.push(`ignored ${f.dropLeadingBlank} leading blank line(s) of the old text`);
  if (f.dropTrailingBlank > 0) parts.push(`ignored ${f.dropTrailingBlank} trailing blank line(s) of the old text`);
  if (f.dropFinalNewline) parts.push("ignored the final newline of the old text (the file's last line has none, and the new text's final newline was left out too)");
  if (f.dropFirstLine) parts.push('ignored the first line of the old text (the new text keeps it unchanged, so the file keeps its own)');
  if (f.dropLastLine) parts.push('ignored the last line of the old text (the new text keeps it unchanged, so the file keeps its own)');
  if (parts.length === 0) parts.push('whitespace of blank lines differs');
  return parts;
}
