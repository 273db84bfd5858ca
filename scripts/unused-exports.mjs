// Unused exports: a name a module of src/ exports that nothing imports (no
// other module of src/, no test, example or benchmark) and no entry point
// publishes is dead weight or a forgotten shim. Exits 1 listing each one.
//
//   node scripts/unused-exports.mjs
//
// It reads the sources with TypeScript's compiler API: every import and
// re-export specifier of every file is resolved, through its alias chain, to
// the declaration it names; what an entry exports (directly or through a
// re-export) counts as used; a module imported whole (`import * as`, a dynamic
// `import()`) has all its exports used.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const ENTRIES = [
  'src/index.ts',
  'src/transport.ts',
  'src/diagnostics.ts',
  'src/stores.ts',
  'src/receiver.ts',
  'src/testing/index.ts',
  'src/testing/msw.ts',
  'src/redis/index.ts',
  'src/otel/index.ts',
];
/** Modules loaded by path rather than imported: the edge build's stand-ins (tsup.config.ts), worker threads' entry, the CLI, the browser script. */
const LOADED_BY_PATH = /^src\/(edge\/|testing\/cli\.ts$|gateway\/shard-worker\.ts$|testing\/playground\/browser\/)/;

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    return statSync(full).isDirectory() ? walk(full) : /\.m?ts$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}
const files = [...['src', 'test', 'examples', 'bench'].flatMap((dir) => walk(join(root, dir))), join(root, 'tsup.config.ts'), join(root, 'vitest.config.ts')];
const program = ts.createProgram(files, {
  noEmit: true,
  strict: true,
  allowJs: false,
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
});
const checker = program.getTypeChecker();
const rel = (fileName) => relative(root, fileName).split('\\').join('/');

/** Every symbol along an alias chain (a re-export of a re-export ...), the declaration included. */
function chain(symbol) {
  const seen = [];
  let current = symbol;
  while (current && !seen.includes(current)) {
    seen.push(current);
    if (!(current.flags & ts.SymbolFlags.Alias)) break;
    current = checker.getImmediateAliasedSymbol(current);
  }
  return seen;
}

const used = new Set();
const wholeModules = new Set();
const use = (symbol) => {
  for (const step of chain(symbol)) used.add(step);
};
const moduleOf = (specifier) => {
  const symbol = checker.getSymbolAtLocation(specifier);
  return symbol?.declarations?.[0]?.getSourceFile().fileName;
};

for (const source of program.getSourceFiles()) {
  const name = rel(source.fileName);
  if (name.startsWith('..') || name.includes('node_modules')) continue;
  const isEntry = ENTRIES.includes(name);
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && node.importClause) {
      const bindings = node.importClause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) wholeModules.add(moduleOf(node.moduleSpecifier));
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) use(checker.getSymbolAtLocation(element.name));
      if (node.importClause.name) use(checker.getSymbolAtLocation(node.importClause.name));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      if (!node.exportClause) wholeModules.add(moduleOf(node.moduleSpecifier));
      else if (ts.isNamedExports(node.exportClause) && (isEntry || name.startsWith('test/') || !name.startsWith('src/')))
        for (const element of node.exportClause.elements) use(checker.getSymbolAtLocation(element.name));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      wholeModules.add(moduleOf(node.arguments[0]));
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      wholeModules.add(moduleOf(node.argument.literal));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (isEntry) for (const symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(source))) use(symbol);
}

/** Names the edge build's stand-in modules import: they are text in tsup.config.ts, which no compiler reads. */
const stubImports = new Set(
  [...readFileSync(join(root, 'tsup.config.ts'), 'utf8').matchAll(/import \{([^}]*)\} from '\.\.?\//g)].flatMap((match) =>
    match[1].split(',').map((name) => name.trim()),
  ),
);

const unused = [];
for (const source of program.getSourceFiles()) {
  const name = rel(source.fileName);
  if (!name.startsWith('src/') || ENTRIES.includes(name) || LOADED_BY_PATH.test(name) || wholeModules.has(source.fileName)) continue;
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) continue;
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    if (chain(symbol).some((step) => used.has(step)) || stubImports.has(symbol.name)) continue;
    // A re-export is judged where the name is declared; only names declared here count.
    if (symbol.flags & ts.SymbolFlags.Alias) continue;
    const line = source.getLineAndCharacterOfPosition(symbol.declarations?.[0]?.getStart() ?? 0).line + 1;
    unused.push(`${name}:${line} ${symbol.name}`);
  }
}

if (unused.length > 0) {
  console.error(
    `unused-exports: ${unused.length} exported names nothing imports and no entry publishes (drop the export, or the code):\n  ${unused.join('\n  ')}`,
  );
  process.exit(1);
}
console.log('unused-exports: every export of src/ is imported or published');
