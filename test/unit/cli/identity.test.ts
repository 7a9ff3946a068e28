import { describe, expect, it } from 'vitest';
import { identitySources, userConfigFiles } from '../../../src/cli/identity';

describe('identity sources as git finds them', () => {
  it('reads the system, XDG and home config files in that order (later wins), or GIT_CONFIG_GLOBAL alone', () => {
    expect(userConfigFiles({}, '/h')).toEqual(['/etc/gitconfig', '/h/.config/git/config', '/h/.gitconfig']);
    expect(userConfigFiles({ XDG_CONFIG_HOME: '/x', GIT_CONFIG_NOSYSTEM: '1' }, '/h')).toEqual(['/x/git/config', '/h/.gitconfig']);
    expect(userConfigFiles({ GIT_CONFIG_GLOBAL: '/g', GIT_CONFIG_SYSTEM: '/s' }, '/h')).toEqual(['/s', '/g']);
  });

  it('takes user.name / user.email from the last file that sets each', () => {
    const system = '[user]\n\tname = System\n\temail = system@example.com\n';
    const home = '[user]\n  name = "Home User"\n';
    expect(identitySources({}, [system, home])).toEqual({ defaults: { name: 'Home User', email: 'system@example.com' } });
  });

  it('GIT_AUTHOR_* and GIT_COMMITTER_* are separate, above the config; EMAIL only stands in for user.email', () => {
    const env = { GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_EMAIL: 'c@x', EMAIL: 'env@x' };
    expect(identitySources(env, ['[user]\nname = U\n'])).toEqual({ author: { name: 'A', email: 'a@x' }, committer: { email: 'c@x' }, defaults: { name: 'U', email: 'env@x' } });
    expect(identitySources({ EMAIL: 'env@x' }, ['[user]\nemail = u@x\n'])).toEqual({ defaults: { email: 'u@x' } });
    expect(identitySources({}, [])).toEqual({});
  });
});
