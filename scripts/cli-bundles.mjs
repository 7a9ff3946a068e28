// What scripts/build.mjs does to the CLI's bundles beyond bundling them (docs/PERFORMANCE.md,
// "Forge's own time"): built-in modules required on first use, and the group bundles' left-out
// dynamic imports.
import { relative, sep } from 'node:path';

// Node's built-in modules that the CLI's bundles require when a property of theirs is first read,
// not at load: esbuild's CommonJS output reads an import's property at each use
// (`(0, import_node_crypto.createHash)(...)`), so a process that never hashes never loads
// node:crypto (~2-3 ms of start-up), and commander's child_process (~2 ms) waits for an executable
// subcommand, which forge has none of. The call is renamed to a function of the same length (the
// source map's columns stay right) defined by the bundle's banner (after "use strict": the bundle
// stays strict code).
export const LAZY_BUILTINS = ['node:crypto', 'node:child_process'];
const LAZY_REQUIRE = '__lzreq';
export const LAZY_BUILTINS_BANNER = `"use strict";var ${LAZY_REQUIRE}=(id)=>{let m;const load=()=>m??=require(id);return new Proxy({},{get:(_,k)=>load()[k],has:(_,k)=>k in load(),ownKeys:()=>Reflect.ownKeys(load()),getOwnPropertyDescriptor:(_,k)=>{const d=Reflect.getOwnPropertyDescriptor(load(),k);return d&&{...d,configurable:true}}})};`;

/** esbuild's output files (name → contents) with the bundles' `require("node:crypto")`s (LAZY_BUILTINS) as `__lzreq("node:crypto")`; the bundles were built with LAZY_BUILTINS_BANNER. */
export function withLazyBuiltins(files) {
  return Object.fromEntries(
    Object.entries(files).map(([name, contents]) => {
      if (!name.endsWith('.cjs')) return [name, contents];
      let text = Buffer.from(contents).toString('utf8');
      if (text.split(LAZY_REQUIRE).length !== 2) throw new Error(`${name}: ${LAZY_REQUIRE} is already a name in the bundle, or the bundle lacks the banner`);
      for (const id of LAZY_BUILTINS) text = text.replaceAll(`require(${JSON.stringify(id)})`, `${LAZY_REQUIRE}(${JSON.stringify(id)})`);
      return [name, text];
    }),
  );
}

/**
 * An esbuild plugin: a group bundle without the modules only its dynamic imports reach (what the
 * group's `fullBundleFor` options need; the launcher runs dist/forge.cjs for those). Each becomes
 * a module that throws, as a bug, if it ever runs. Only those the group lists in `leftOut`
 * ("importer:specifier", the importer relative to `root`): any other dynamic import is bundled as
 * usual (loaded when it runs), so a new one on a group command's path costs bundle size, never
 * correctness. The build fails on a listed one that no module makes any more.
 */
export function leaveOutDynamicImports(group, leftOut, root = process.cwd()) {
  return {
    name: 'leave-out-dynamic-imports',
    setup(b) {
      const seen = new Set();
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const key = `${relative(root, args.importer).split(sep).join('/')}:${args.path}`;
        if (!leftOut.includes(key)) return undefined;
        seen.add(key);
        return { path: key, namespace: 'left-out' };
      });
      b.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`forge-${group}.cjs does not hold ${args.path}: the launcher runs dist/forge.cjs for ${group}'s options that need it`)});`,
        loader: 'js',
      }));
      b.onEnd((result) => {
        const unused = leftOut.filter((key) => !seen.has(key));
        if (result.errors.length === 0 && unused.length > 0) return { errors: [{ text: `forge-${group}.cjs: leftOut lists ${unused.join(', ')}, which no module of the group imports` }] };
        return undefined;
      });
    },
  };
}
