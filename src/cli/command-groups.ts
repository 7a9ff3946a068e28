/**
 * The commands that have a bundle of their own (dist/forge-<group>.cjs, scripts/build.mjs): for a
 * command of a group the launcher (scripts/cli-launcher.cjs) runs that bundle, which holds what
 * those commands load but the modules that only its `leftOut` dynamic imports reach, and
 * dist/forge.cjs for every other command, help, an unknown word, and a group's command given one
 * of its `fullBundleFor` options (those that reach the left-out modules). Loading less is most of
 * what `forge cat` can save of its own time (issue 30).
 */
export interface CommandGroupSpec {
  readonly commands: readonly string[];
  /** Options (`--x` or `--x=...`, anywhere after the command) that need modules this bundle leaves out. */
  readonly fullBundleFor: readonly string[];
  /** The dynamic imports the group bundle leaves out ("importer:specifier"; any other is bundled as usual, the build fails on a listed one that is gone). */
  readonly leftOut: readonly string[];
  /** V8 flags the launcher sets before it compiles the bundle (node:v8's setFlagsFromString). */
  readonly v8Flags?: readonly string[];
}

/**
 * V8 optimizes a function after about 3 x 66 KB of its bytecode has run. A merge or a diff of a
 * few hundred objects runs its loops just past that, so a fresh process spent ~60 ms of CPU on
 * optimizing compiles (beside the whole work's ~90 ms) it was over before it used. 16 times the
 * budget leaves them interpreted (Sparkplug) while still optimizing loops that run for longer
 * (a large merge), after a few more milliseconds. Measured in docs/PERFORMANCE.md (issue 30).
 */
const SHORT_RUN_V8_FLAGS = ['--interrupt-budget=1081344'];

export const COMMAND_GROUPS = {
  // --session opens the session store (zod schemas, the secret scanner, settings): src/cli/open.ts's openStore.
  view: { commands: ['cat', 'ls', 'materialize'], fullBundleFor: ['--session'], leftOut: ['src/cli/open.ts:../session', 'src/cli/open.ts:../session/node/secretlint-scanner', 'src/cli/open.ts:./settings'] },
  // merge and diff never open the session store. The bundle registers rebase too (one module
  // registers the three), but rebase, which reads and rewrites session state (zod schemas), runs in forge.cjs.
  merge: {
    commands: ['merge', 'diff'],
    fullBundleFor: [],
    leftOut: ['src/cli/open.ts:../session', 'src/cli/open.ts:../session/node/secretlint-scanner', 'src/cli/open.ts:./settings', 'src/cli/commands/merge.ts:../../branches/rebase'],
    v8Flags: SHORT_RUN_V8_FLAGS,
  },
} as const satisfies Record<string, CommandGroupSpec>;

export type CommandGroup = keyof typeof COMMAND_GROUPS;
