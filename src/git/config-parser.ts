/**
 * git-config file syntax (git-config(1) "CONFIGURATION FILE"), pure: sections `[core]`,
 * subsections `[remote "origin"]` (case-sensitive, with \" and \\ escapes) and the legacy
 * `[section.sub]`, case-insensitive variable names, a bare name meaning true, values with
 * quotes, \n \t \b \\ \" escapes, `#`/`;` comments outside quotes and backslash continuation.
 * `include` / `includeIf` are not followed (isomorphic-git does not follow them either).
 * Keys come back as git prints them with --list: `section.subsection.name`, section and name
 * lower-cased. The last value of a key wins, as for `git config --get`.
 */

export type ConfigValue = string | true;

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', b: '\b', '\\': '\\', '"': '"' };

export function parseGitConfig(text: string): Map<string, ConfigValue[]> {
  const out = new Map<string, ConfigValue[]>();
  let section: string | null = null;
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++;
  };
  const skipLine = () => {
    while (i < n && text[i] !== '\n') i++;
    i++;
  };
  while (i < n) {
    skipSpace();
    const ch = text[i];
    if (ch === undefined) break;
    if (ch === '\n') {
      i++;
    } else if (ch === '#' || ch === ';') {
      skipLine();
    } else if (ch === '[') {
      section = readSectionHeader();
    } else if (/[A-Za-z]/.test(ch)) {
      const start = i;
      while (i < n && /[A-Za-z0-9-]/.test(text[i]!)) i++;
      const name = text.slice(start, i).toLowerCase();
      skipSpace();
      let value: ConfigValue = true;
      if (text[i] === '=') {
        i++;
        value = readValue();
      } else {
        skipLine();
      }
      if (section !== null) {
        const key = `${section}.${name}`;
        const list = out.get(key);
        if (list) list.push(value);
        else out.set(key, [value]);
      }
    } else {
      skipLine();
    }
  }
  return out;

  function readSectionHeader(): string | null {
    i++;
    let name = '';
    while (i < n && /[A-Za-z0-9.-]/.test(text[i]!)) name += text[i++];
    name = name.toLowerCase();
    skipSpace();
    if (text[i] === '"') {
      i++;
      let sub = '';
      while (i < n && text[i] !== '"' && text[i] !== '\n') {
        if (text[i] === '\\' && i + 1 < n) i++;
        sub += text[i++];
      }
      i++;
      skipSpace();
      if (text[i] !== ']') {
        skipLine();
        return null;
      }
      i++;
      return `${name}.${sub}`;
    }
    if (text[i] !== ']') {
      skipLine();
      return null;
    }
    i++;
    // Legacy [section.Sub] form: the subsection is lower-cased too.
    return name;
  }

  function readValue(): string {
    skipSpace();
    let value = '';
    let pendingSpace = '';
    let quoted = false;
    while (i < n) {
      const c = text[i]!;
      if (c === '\n') {
        if (quoted) return value;
        break;
      }
      if (!quoted && (c === '#' || c === ';')) {
        skipLine();
        return value;
      }
      if (c === '"') {
        quoted = !quoted;
        value += pendingSpace;
        pendingSpace = '';
        i++;
        continue;
      }
      if (c === '\\') {
        const next = text[i + 1];
        i += 2;
        if (next === '\n') continue;
        if (next === '\r' && text[i] === '\n') {
          i++;
          continue;
        }
        value += pendingSpace + (ESCAPES[next ?? ''] ?? '');
        pendingSpace = '';
        continue;
      }
      if (!quoted && (c === ' ' || c === '\t' || c === '\r')) {
        pendingSpace += c === '\r' ? '' : c;
        i++;
        continue;
      }
      value += pendingSpace + c;
      pendingSpace = '';
      i++;
    }
    i++;
    return value;
  }
}
