// The declarations the package ships, after `tsc -p tsconfig.types.json`:
// 1. only those an entry point reaches (package.json `exports`, its `types`
//    conditions): tsc writes one per source file, and the internal ones (the
//    zod schemas among them) are no part of the API, so no shipped file names
//    zod or an internal module;
// 2. the CommonJS build gets its own: every kept .d.ts is copied to a .d.cts
//    beside it whose relative imports name .cjs files, so TypeScript reads
//    `require('community-chat-sdk')` as CommonJS and `import` as ESM (what
//    attw checks), with one readable file per source file.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = fileURLToPath(new URL('..', import.meta.url));
const root = join(here, 'dist/types');
const RELATIVE = /((?:from|import)\s*\(?\s*')(\.{1,2}\/[^']+)\.js(')/g;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The `.d.ts` of every entry point: the `types` of each `import` condition in package.json `exports`. */
function entryDeclarations() {
  const { exports } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
  return Object.values(exports)
    .map((conditions) => conditions?.import?.types)
    .filter((types) => typeof types === 'string' && types.endsWith('.d.ts'))
    .map((types) => resolve(here, types));
}

const all = walk(root);
if (all.length === 0) throw new Error(`no declarations under ${root}: run tsc -p tsconfig.types.json first`);
const entries = entryDeclarations();
const missing = entries.filter((file) => !all.includes(file));
if (missing.length > 0) throw new Error(`entry declarations missing from ${root}: ${missing.join(', ')}`);
const program = ts.createProgram(entries, {
  noEmit: true,
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
});
const reached = new Set(program.getSourceFiles().map((source) => resolve(source.fileName)));
let kept = 0;
for (const file of all) {
  if (!reached.has(file)) {
    rmSync(file);
    continue;
  }
  writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), readFileSync(file, 'utf8').replace(RELATIVE, '$1$2.cjs$3'));
  kept++;
}
console.log(`declarations: ${kept} reached from ${entries.length} entries kept (and a .d.cts each), ${all.length - kept} internal removed`);
