import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGitConfig } from '../../../src/git/config-parser';
import { git } from '../../helpers/git-cli';
import { makeTempDir } from '../../helpers/temp';

/** git's own reading of a config file: `git config --file F --null --list`. */
function gitList(text: string): Map<string, string[]> {
  const file = join(makeTempDir('config'), 'config');
  writeFileSync(file, text);
  const out = new Map<string, string[]>();
  for (const record of git(makeTempDir('cwd'), ['config', '--file', file, '--null', '--list']).stdout.split('\0')) {
    if (record === '') continue;
    const nl = record.indexOf('\n');
    const key = nl < 0 ? record : record.slice(0, nl);
    const value = nl < 0 ? 'true' : record.slice(nl + 1);
    out.set(key, [...(out.get(key) ?? []), value]);
  }
  return out;
}

function ours(text: string): Map<string, string[]> {
  return new Map([...parseGitConfig(text)].map(([k, v]) => [k, v.map((x) => (x === true ? 'true' : x))]));
}

const CASES: Record<string, string> = {
  plain: '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n',
  'bare name is true': '[core]\n\tbare\n',
  'case of sections and names': '[Core]\n\tLogAllRefUpdates = true\n[EXTENSIONS]\n\tObjectFormat = sha256\n',
  subsection: '[remote "origin"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "Main"]\n\tremote = origin\n',
  'legacy subsection': '[branch.Feature]\n\tremote = up\n',
  'quotes and escapes': '[a]\n\tx = "  padded  "\n\ty = tab\\there\n\tz = "semi;colon # not comment"\n\tw = say \\"hi\\"\n',
  comments: '# top\n; also\n[a]\n\tx = 1 # trailing\n\ty = 2 ; trailing\n',
  continuation: '[a]\n\tx = one \\\n  two\n',
  'multi-valued': '[a]\n\tx = 1\n\tx = 2\n[a]\n\tx = 3\n',
  'inner spaces kept, ends trimmed': '[a]\n\tx =   several   spaces   here   \n',
  crlf: '[core]\r\n\tbare = true\r\n[user]\r\n\tname = Win Dows\r\n',
  'empty value': '[a]\n\tx =\n\ty = ""\n',
};

describe('git config parsing agrees with git config --list', () => {
  for (const [name, text] of Object.entries(CASES)) {
    it(name, () => {
      expect(ours(text)).toEqual(gitList(text));
    });
  }
});
