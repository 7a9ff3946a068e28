/** Repository.identity with the sources an adapter passes at open: variables above the repository's config, user config below it. */
import { describe, expect, it } from 'vitest';
import { Repository, type IdentitySources } from '../../../src/git';
import { makeMemRepo } from '../../helpers/memfs-repo';

async function who(identity: IdentitySources, repoConfig = ''): Promise<string[]> {
  const mem = await makeMemRepo({ files: { 'a.txt': 'a\n' } });
  if (repoConfig) mem.fs.appendFileSync(`${mem.gitdir}/config`, repoConfig);
  const repo = await Repository.open({ fs: mem.fs, dir: mem.dir, identity });
  const now = new Date(0);
  const a = await repo.identity({}, now, 'author');
  const c = await repo.identity({}, now, 'committer');
  return [`${a.name} <${a.email}>`, `${c.name} <${c.email}>`];
}

describe('Repository.identity with identity sources', () => {
  it('falls back to Forge <forge@localhost>, then the user config', async () => {
    expect(await who({})).toEqual(['Forge <forge@localhost>', 'Forge <forge@localhost>']);
    expect(await who({ defaults: { name: 'U', email: 'u@x' } })).toEqual(['U <u@x>', 'U <u@x>']);
  });

  it("the repository's user.* and author.*/committer.* config win over the user config", async () => {
    expect(await who({ defaults: { name: 'U', email: 'u@x' } }, '[user]\n\tname = R\n')).toEqual(['R <u@x>', 'R <u@x>']);
    expect(await who({}, '[user]\n\tname = R\n[committer]\n\tname = RC\n')).toEqual(['R <forge@localhost>', 'RC <forge@localhost>']);
  });

  it('the variables win over every config, each for its own role; an explicit override over everything', async () => {
    expect(await who({ author: { name: 'EA' }, committer: { email: 'ec@x' }, defaults: { name: 'U', email: 'u@x' } }, '[user]\n\temail = r@x\n')).toEqual(['EA <r@x>', 'U <ec@x>']);
    const mem = await makeMemRepo({ files: {} });
    const repo = await Repository.open({ fs: mem.fs, dir: mem.dir, identity: { author: { name: 'EA' } } });
    expect((await repo.identity({ name: 'Given' })).name).toBe('Given');
  });
});
