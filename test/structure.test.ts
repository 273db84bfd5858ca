/**
 * The house rules of src/, checked: layers import only downward, no import
 * cycle anywhere (type-only and lazy imports included), no file much over 400
 * lines, and the main entry reaches neither the testing kit nor the optional
 * integrations.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : name.endsWith('.ts') ? [full] : [];
  });
}
const files = walk(src);
const rel = (file: string) => relative(src, file).split('\\').join('/');

/** Relative imports of a file (static, type-only, re-exports and dynamic), as absolute paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)\.js'/g)].map((m) => resolve(dirname(file), `${m[1]}.ts`));
  return [...new Set(found)].map((target) => (files.includes(target) ? target : target.replace(/\.ts$/, '/index.ts')));
}
const graph = new Map(files.map((file) => [file, importsOf(file)]));

/** The layers of docs/architecture.md, from the ground up; a file may import only from its own layer or below. */
const LAYERS: [number, RegExp][] = [
  [1, /^(core|schemas|errors)\//],
  [2, /^auth\//],
  [3, /^(rest|observe)\//],
  [4, /^resources\//],
  [5, /^interactions\//],
  [6, /^(gateway|receive)\//],
  [7, /^clients\//],
  [8, /^(index|transport|diagnostics|stores|receiver)\.ts$|^(redis|testing|otel)\//],
];
const layerOf = (file: string) => LAYERS.find(([, pattern]) => pattern.test(rel(file)))?.[0];

describe('the house of src/', () => {
  it('puts every file in a layer', () => {
    expect(files.filter((file) => layerOf(file) === undefined).map(rel)).toEqual([]);
  });

  it('imports only downward (or within a layer)', () => {
    const upward = files.flatMap((file) =>
      (graph.get(file) ?? []).filter((target) => (layerOf(target) ?? 0) > (layerOf(file) ?? 0)).map((target) => `${rel(file)} -> ${rel(target)}`),
    );
    expect(upward).toEqual([]);
  });

  it('has no import cycle, not even inside a folder', () => {
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map(rel).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps files under about 400 lines, generated tables aside', () => {
    const long = files.filter((file) => rel(file) !== 'routes.ts' && readFileSync(file, 'utf8').split('\n').length > 420).map(rel);
    expect(long).toEqual([]);
  });

  it('uses the InteractionType and InteractionCallbackType constants, not bare numbers', () => {
    const offenders = files
      .filter((file) => /^(gateway|interactions|receive|resources|testing)\//.test(rel(file)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => /respond\(\s*\d|case \d+:|type === \d|interaction_type: \d/.test(line))
          .map((line) => `${rel(file)}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });

  it('never reaches the testing kit or the optional integrations from the main entry', () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file) ?? []) visit(next);
    };
    visit(join(src, 'index.ts'));
    expect([...reached].map(rel).filter((file) => /^(testing|redis|otel)\//.test(file))).toEqual([]);
    const packages = [...reached].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from\s+'(redis|@opentelemetry\/[^']+|msw[^']*)'/g)].map((m) => `${rel(file)}: ${m[1]}`),
    );
    expect(packages).toEqual([]);
  });

  it('exports each public symbol from one entry only', () => {
    const entries = [
      'index.ts',
      'transport.ts',
      'diagnostics.ts',
      'stores.ts',
      'receiver.ts',
      'testing/index.ts',
      'testing/msw.ts',
      'redis/index.ts',
      'otel/index.ts',
    ].map((entry) => join(src, entry));
    const program = ts.createProgram(entries, {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
    });
    const checker = program.getTypeChecker();
    const where = new Map<string, string[]>();
    for (const entry of entries) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry) as ts.SourceFile);
      expect(module, rel(entry)).toBeDefined();
      for (const symbol of checker.getExportsOfModule(module as ts.Symbol)) where.set(symbol.name, [...(where.get(symbol.name) ?? []), rel(entry)]);
    }
    expect(where.size).toBeGreaterThan(100);
    expect([...where].filter(([, found]) => found.length > 1).map(([name, found]) => `${name}: ${found.join(', ')}`)).toEqual([]);
  });
});
