import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const files = ['gateway', 'interactions'].flatMap((dir) => readdirSync(join(src, dir)).filter((f) => f.endsWith('.ts')).map((f) => join(src, dir, f)));

/** Relative imports of a file (static, type-only and dynamic), as absolute paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)\.js'/g)].map((m) => resolve(dirname(file), `${m[1]}.ts`));
  return [...new Set(found)];
}

describe('the Gateway and interaction modules', () => {
  it('have no import cycle (type-only and lazy imports included), and the connection never imports the Gateway', () => {
    const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => files.includes(target))]));
    expect(graph.get(join(src, 'gateway/connection.ts'))).not.toContain(join(src, 'gateway/gateway.ts'));
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (path.includes(file)) {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => f.slice(src.length + 1)).join(' -> '));
        return;
      }
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('stay under about 400 lines each', () => {
    const long = files.filter((file) => readFileSync(file, 'utf8').split('\n').length > 410).map((file) => file.slice(src.length + 1));
    expect(long).toEqual([]);
  });

  it('use the InteractionType and InteractionCallbackType constants, not bare numbers', () => {
    const offenders = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /respond\(\s*\d|case \d+:|type === \d/.test(line))
        .map((line) => `${file.slice(src.length + 1)}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
