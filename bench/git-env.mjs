// The environment the bench scripts run git (and forge) in: no user or system git config, so
// results do not depend on how the machine is set up.
import { tmpdir } from 'node:os';

export const HERMETIC_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmpdir(),
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
