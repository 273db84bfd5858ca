/**
 * The shape description (core/shape.ts): what each scalar accepts, written
 * once as a test and as the source the emitted checks spell out, held to the
 * same answers; the issues of a refused value; and the check emitted by
 * core/shape-source.ts, run here and held to the issues.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { shapeCheckSource } from '../../src/core/shape-source.js';
import {
  absent,
  arrayOf,
  boolean,
  compileIssues,
  finiteNumber,
  nonEmptyString,
  object,
  oneOf,
  optional,
  SCALAR_KINDS,
  type Shape,
  safeInteger,
  string,
} from '../../src/core/shape.js';

const samples: unknown[] = [
  undefined,
  null,
  '',
  'x',
  0,
  -0,
  1,
  -1,
  1.5,
  2 ** 53,
  -(2 ** 53),
  2 ** 53 - 1,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  true,
  false,
  [],
  {},
  10n,
];

/** The emitted check of `shape`, compiled from its TypeScript source and run. */
function emittedCheck(shape: Shape): (value: unknown) => boolean {
  const source = shapeCheckSource(shape, 'check', 'core/example.ts');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText;
  const exports: { check?: (value: unknown) => boolean } = {};
  new Function('exports', js)(exports);
  if (exports.check === undefined) throw new Error(`the emitted module exports no check:\n${source}`);
  return exports.check;
}

describe('scalar kinds', () => {
  it('each kind’s test and its emitted source give the same answers', () => {
    for (const kind of SCALAR_KINDS) {
      const source = new Function('$', `return ${kind.source};`) as (value: unknown) => boolean;
      for (const sample of samples) expect(source(sample), `${kind.name} on ${String(sample)}`).toBe(kind.test(sample));
    }
  });

  it('accept what their names say', () => {
    const accepted = (shape: Shape) => samples.filter((sample) => compileIssues(object({ field: shape }))({ field: sample }).length === 0);
    expect(accepted(string)).toEqual(['', 'x']);
    expect(accepted(nonEmptyString)).toEqual(['x']);
    expect(accepted(safeInteger)).toEqual([0, -0, 1, -1, 2 ** 53 - 1]);
    expect(accepted(finiteNumber)).toEqual([0, -0, 1, -1, 1.5, 2 ** 53, -(2 ** 53), 2 ** 53 - 1]);
    expect(accepted(boolean)).toEqual([true, false]);
    expect(accepted(oneOf(nonEmptyString, boolean))).toEqual(['x', true, false]);
  });
});

describe('the issues of a refused value', () => {
  const shape = object({
    name: nonEmptyString,
    tags: optional(arrayOf(string)),
    items: optional(arrayOf(object({ count: safeInteger, more: absent('items nest once') }))),
  });
  const issues = compileIssues(shape);

  it('name the path and say what was expected and what came, in order', () => {
    expect(issues({ name: 'n' })).toEqual([]);
    expect(issues({ tags: ['a', 2], items: [{ count: 1 }, { count: 1.5, more: [] }, 'x'] })).toEqual([
      { path: 'name', message: 'expected a non-empty string, received nothing' },
      { path: 'tags.1', message: 'expected a string, received an integer' },
      { path: 'items.1.count', message: 'expected a safe integer, received a fraction' },
      { path: 'items.1.more', message: 'expected nothing, received an array (items nest once)' },
      { path: 'items.2', message: 'expected an object, received a string' },
    ]);
    expect(issues(null)).toEqual([{ path: '', message: 'expected an object, received null' }]);
  });

  it('stop at the limit and count the rest', () => {
    expect(compileIssues(shape, 2)({ tags: [1, 2, 3] })).toEqual([
      { path: 'name', message: 'expected a non-empty string, received nothing' },
      { path: 'tags.0', message: 'expected a string, received an integer' },
      { path: '', message: 'and 2 more issues' },
    ]);
    expect(compileIssues(shape, 1)({ name: 'n', tags: [1, 2] }).at(-1)).toEqual({ path: '', message: 'and 1 more issue' });
  });
});

describe('the emitted check', () => {
  const user = object({ id: nonEmptyString });
  const shape = object({
    a: user,
    b: optional(user),
    list: optional(arrayOf(oneOf(string, finiteNumber))),
    rows: optional(arrayOf(object({ user: optional(user), none: absent('no') }))),
  });

  it('says yes exactly when there is no issue', () => {
    const check = emittedCheck(shape);
    const issues = compileIssues(shape);
    const values: unknown[] = [
      { a: { id: 'x' } },
      { a: { id: '' } },
      { a: { id: 'x' }, b: { id: 'y' }, list: ['a', 1], rows: [{ user: { id: 'z' } }, {}] },
      { a: { id: 'x' }, list: [Number.NaN] },
      { a: { id: 'x' }, list: [true] },
      { a: { id: 'x' }, rows: [{ none: 1 }] },
      { a: { id: 'x' }, rows: [{ user: { id: 1 } }] },
      { a: { id: 'x' }, rows: {} },
      { a: { id: 'x' }, b: null },
      { b: { id: 'y' } },
      [],
      null,
      'a',
    ];
    for (const value of values) expect(check(value), JSON.stringify(value)).toBe(issues(value).length === 0);
    expect(values.filter((value) => check(value))).toHaveLength(2);
  });

  it('has one function per object or array, a shape used twice written once', () => {
    const source = shapeCheckSource(shape, 'check', 'core/example.ts');
    // The root, user, the list, the rows and a row: user is used three times.
    expect(source.match(/^function check\d+\(/gm)).toHaveLength(5);
    expect(source).toContain("const field0 = fields['id'];\n  if (!(typeof field0 === 'string' && field0.length > 0)) return false;");
  });

  it('reads a field whose name holds quotes or a backslash by that very name', () => {
    const check = emittedCheck(object({ "it's": string, 'a"b\\c': safeInteger }));
    expect(check({ "it's": 'x', 'a"b\\c': 1 })).toBe(true);
    expect(check({ "it's": 'x', 'a"b\\c': 'x' })).toBe(false);
    expect(check({ its: 'x', 'a"b\\c': 1 })).toBe(false);
  });

  it('is refused for a scalar shape, which has no function of its own', () => {
    expect(() => shapeCheckSource(string, 'check', 'core/example.ts')).toThrow(/object or an array/);
  });
});
