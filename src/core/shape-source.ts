/**
 * The source of a shape's yes-or-no check (`shape.ts`), emitted as a module of
 * plain TypeScript: a function per object and array of the shape, so that
 * each field is read at a site of its own (a property load V8 caches for the
 * one field it reads, which a loop over field names cannot have), and each
 * scalar tested in place by the source of its kinds (`SCALAR_KINDS`). Run by
 * the test that keeps a generated module current, never by the SDK at run
 * time (no code is built from strings).
 *
 * @module
 */

import { type Fields, SCALAR_KINDS, type Shape } from './shape.js';

/** The source of a scalar's test of `value` (an identifier): the tests of its kinds, spelled out. */
function scalarSource(mask: number, value: string): string {
  const tests = SCALAR_KINDS.filter((kind) => (mask & kind.bit) !== 0).map((kind) => kind.source.replaceAll('$', value));
  if (tests.length === 0) return 'false';
  // Parenthesised unless it is one call, so that it can be negated.
  return tests.length === 1 && !/\s/.test(tests[0] as string) ? (tests[0] as string) : `(${tests.join(' || ')})`;
}

/** A string literal in single quotes, the house style. */
const quote = (text: string): string => `'${JSON.stringify(text).slice(1, -1).replaceAll("'", "\\'").replaceAll('\\"', '"')}'`;

/** The source of a module whose export `name` checks `shape`; `from` says where the module's rule lives, for the header. */
export function shapeCheckSource(shape: Shape, name: string, from: string): string {
  const functions: string[] = [];
  // A shape used in two places (an object referred to twice) has one function.
  const emitted = new Map<Shape, string>();
  /** The expression testing `value` (an identifier) against `shape`, emitting the functions it needs. */
  const test = (inner: Shape, value: string): string => (inner.kind === 'scalar' ? scalarSource(inner.mask, value) : `${emit(inner)}(${value})`);
  const emit = (inner: Shape): string => {
    const known = emitted.get(inner);
    if (known !== undefined) return known;
    const id = `check${functions.length}`;
    emitted.set(inner, id);
    functions.push('');
    const lines: string[] = [];
    if (inner.kind === 'array') {
      lines.push(`function ${id}(value: unknown): boolean {`, '  if (!Array.isArray(value)) return false;');
      lines.push(
        '  for (let i = 0; i < value.length; i++) {',
        '    const item: unknown = value[i];',
        `    if (!${test(inner.item, 'item')}) return false;`,
        '  }',
      );
    } else if (inner.kind === 'object') {
      lines.push(`function ${id}(value: unknown): boolean {`, `  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;`);
      lines.push('  const fields = value as Record<string, unknown>;');
      for (const [index, [key, field]] of Object.entries(inner.fields as Fields).entries()) {
        const name = `field${index}`;
        lines.push(`  const ${name} = fields[${quote(key)}];`);
        if (field.kind === 'optional' && field.shape.kind === 'scalar' && field.shape.mask === 0) lines.push(`  if (${name} !== undefined) return false;`);
        else if (field.kind === 'optional') lines.push(`  if (${name} !== undefined && !${test(field.shape, name)}) return false;`);
        else lines.push(`  if (!${test(field, name)}) return false;`);
      }
    } else throw new Error('a scalar is tested in place, it has no function');
    lines.push('  return true;', '}');
    functions[Number(id.slice('check'.length))] = lines.join('\n');
    return id;
  };
  if (shape.kind === 'scalar') throw new Error('only an object or an array shape has a check of its own');
  const root = emit(shape);
  return [
    `// Generated from the shape in ${from} by shapeCheckSource (core/shape-source.ts); do not edit.`,
    `// \`npx vitest run test/${from.replace(/\.ts$/, '.test.ts')} -u\` writes it again after the shape changed.`,
    '',
    '/** Whether `value` has the shape; allocates nothing. */',
    `export function ${name}(value: unknown): boolean {`,
    `  return ${root}(value);`,
    '}',
    '',
    ...functions.flatMap((source) => [source, '']),
  ].join('\n');
}
