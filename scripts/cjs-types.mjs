// Gives the CommonJS build its own declarations: every dist/types/**/*.d.ts is
// copied to a .d.cts beside it whose relative imports name .cjs files, so
// TypeScript reads `require('community-chat-sdk')` as CommonJS and
// `import` as ESM (what attw checks), with one readable file per source file.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../dist/types/', import.meta.url));
const RELATIVE = /((?:from|import)\s*\(?\s*')(\.{1,2}\/[^']+)\.js(')/g;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : name.endsWith('.d.ts') ? [full] : [];
  });
}

let count = 0;
for (const file of walk(root)) {
  writeFileSync(file.replace(/\.d\.ts$/, '.d.cts'), readFileSync(file, 'utf8').replace(RELATIVE, '$1$2.cjs$3'));
  count++;
}
if (count === 0) throw new Error(`no declarations under ${root}: run tsc -p tsconfig.types.json first`);
