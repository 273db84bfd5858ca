/**
 * A small declarative description of a JSON value's shape, from which come
 * both its yes-or-no check and the issues of a value it refuses, so a rule is
 * written once. The check is plain code that `shape-source.ts` emits from the
 * description into a generated module (a test keeps that module current):
 * each field read at a site of its own, as fast as a check written by hand,
 * and nothing allocated; no code is built at run time. The issues come from
 * {@link compileIssues}, a walk compiled at load from the same description,
 * run only for a refused value: a {@link ValidationIssue} per offending field.
 *
 * Objects are loose: fields the shape does not name are allowed and left
 * alone, and nothing is copied or transformed. A walk follows the shape, not
 * the value: it reads only the fields the shape names, so its depth is the
 * shape's however deep the value nests, and a key such as `__proto__` is never
 * read unless a shape names it.
 *
 * @module
 */

import type { ValidationIssue } from '../errors/local.js';

/** The kinds of scalar, a bit each. */
const STRING = 1;
const NON_EMPTY_STRING = 2;
const SAFE_INTEGER = 4;
const FINITE_NUMBER = 8;
const BOOLEAN = 16;

/** A kind of scalar: its bit, its name in an issue, its test, and the same test as source for the emitted checks (`$` stands for the value). */
interface ScalarKind {
  readonly bit: number;
  readonly name: string;
  readonly test: (value: unknown) => boolean;
  readonly source: string;
}

/** The one home of what each kind of scalar accepts; a test holds each row's test and source to the same answers. */
export const SCALAR_KINDS: readonly ScalarKind[] = [
  { bit: STRING, name: 'a string', test: (value) => typeof value === 'string', source: "typeof $ === 'string'" },
  {
    bit: NON_EMPTY_STRING,
    name: 'a non-empty string',
    test: (value) => typeof value === 'string' && value.length > 0,
    source: "typeof $ === 'string' && $.length > 0",
  },
  { bit: SAFE_INTEGER, name: 'a safe integer', test: (value) => Number.isSafeInteger(value), source: 'Number.isSafeInteger($)' },
  { bit: FINITE_NUMBER, name: 'a finite number', test: (value) => Number.isFinite(value), source: 'Number.isFinite($)' },
  { bit: BOOLEAN, name: 'a boolean', test: (value) => typeof value === 'boolean', source: "typeof $ === 'boolean'" },
];

/** A string, number or boolean of some kinds (a bit each), or nothing at all (no bit). `T` is what it accepts, for the types. */
interface ScalarShape<T> {
  readonly kind: 'scalar';
  readonly mask: number;
  /** Said after the issue, e.g. why nothing is allowed here. */
  readonly note?: string;
  /** Type only: what the shape accepts. */
  readonly accepts?: T;
}
/** An array whose every item has the shape `item`. */
interface ArrayShape<S extends Shape> {
  readonly kind: 'array';
  readonly item: S;
}
/** An object with at least these fields (a bare shape is required, {@link optional} may be absent); other fields are allowed. */
interface ObjectShape<F extends Fields> {
  readonly kind: 'object';
  readonly fields: F;
}
/** A field that may be absent (or `undefined`). */
interface Optional<S extends Shape> {
  readonly kind: 'optional';
  readonly shape: S;
}
/** Any shape. */
// biome-ignore lint/suspicious/noExplicitAny: the widest shape, for constraints only
export type Shape = ScalarShape<unknown> | ArrayShape<any> | ObjectShape<any>;
/** The fields of an object shape. */
export type Fields = Readonly<Record<string, Shape | Optional<Shape>>>;

/** The type of the values a shape accepts (an optional field is typed as absent when it holds `undefined`, as JSON never sends it). */
export type Infer<S> =
  S extends ScalarShape<infer T> ? T : S extends ArrayShape<infer I> ? Infer<I>[] : S extends ObjectShape<infer F> ? InferFields<F> : never;
type InferFields<F> = { [K in keyof F as F[K] extends Optional<Shape> ? never : K]: Infer<F[K]> } & {
  [K in keyof F as F[K] extends Optional<Shape> ? K : never]?: F[K] extends Optional<infer S> ? Infer<S> : never;
} & { [field: string]: unknown };

const scalar = <T>(mask: number, note?: string): ScalarShape<T> => (note === undefined ? { kind: 'scalar', mask } : { kind: 'scalar', mask, note });

/** Any string. */
export const string: ScalarShape<string> = scalar(STRING);
/** A string of at least one character. */
export const nonEmptyString: ScalarShape<string> = scalar(NON_EMPTY_STRING);
/** A number that is an integer within ±(2^53 - 1). */
export const safeInteger: ScalarShape<number> = scalar(SAFE_INTEGER);
/** A number that is neither NaN nor infinite. */
export const finiteNumber: ScalarShape<number> = scalar(FINITE_NUMBER);
/** `true` or `false`. */
export const boolean: ScalarShape<boolean> = scalar(BOOLEAN);

/** Any of these scalars. */
export function oneOf<T extends ScalarShape<unknown>[]>(...shapes: T): ScalarShape<Infer<T[number]>> {
  return scalar(shapes.reduce((mask, shape) => mask | shape.mask, 0));
}
/** A field that must be absent (or `undefined`); `note` says why, in the issue. */
export function absent(note: string): Optional<ScalarShape<undefined>> {
  return optional(scalar(0, note));
}
/** An array of `item`s. */
export function arrayOf<S extends Shape>(item: S): ArrayShape<S> {
  return { kind: 'array', item };
}
/** An object with these fields, and any others. */
export function object<F extends Fields>(fields: F): ObjectShape<F> {
  return { kind: 'object', fields };
}
/** A field that may be absent. */
export function optional<S extends Shape>(shape: S): Optional<S> {
  return { kind: 'optional', shape };
}

type Explain = (value: unknown, path: string, out: Collector) => void;
/** The issues of one explanation, and how many were left out. */
interface Collector {
  readonly issues: ValidationIssue[];
  readonly max: number;
  more: number;
}

type Fielded = Record<string, unknown>;
const isObject = (value: unknown): value is Fielded => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a scalar of these bits accepts `value`. */
function matches(value: unknown, mask: number): boolean {
  for (const kind of SCALAR_KINDS) if ((mask & kind.bit) !== 0 && kind.test(value)) return true;
  return false;
}

/** What `value` is, in words, without its content (a string may be a secret). */
function received(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value.length === 0 ? 'an empty string' : 'a string';
    case 'number':
      if (!Number.isFinite(value)) return String(value);
      return Number.isSafeInteger(value) ? 'an integer' : Number.isInteger(value) ? 'an integer beyond 2^53 - 1' : 'a fraction';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

function expected(shape: Shape): string {
  if (shape.kind === 'array') return 'an array';
  if (shape.kind === 'object') return 'an object';
  const names = SCALAR_KINDS.filter((kind) => (shape.mask & kind.bit) !== 0).map((kind) => kind.name);
  return names.length === 0 ? 'nothing' : names.join(' or ');
}

function report(out: Collector, path: string, shape: Shape, value: unknown): void {
  if (out.issues.length >= out.max) {
    out.more++;
    return;
  }
  const note = shape.kind === 'scalar' && shape.note !== undefined ? ` (${shape.note})` : '';
  out.issues.push({ path, message: `expected ${expected(shape)}, received ${received(value)}${note}` });
}

const join = (path: string, key: string | number): string => (path === '' ? String(key) : `${path}.${key}`);

function compileExplain(shape: Shape): Explain {
  if (shape.kind === 'scalar') {
    const mask = shape.mask;
    return (value, path, out) => {
      if (!matches(value, mask)) report(out, path, shape, value);
    };
  }
  if (shape.kind === 'array') {
    const item = compileExplain(shape.item);
    return (value, path, out) => {
      if (!Array.isArray(value)) report(out, path, shape, value);
      else for (let i = 0; i < value.length; i++) item(value[i], join(path, i), out);
    };
  }
  const fields = Object.entries(shape.fields as Fields).map(([key, field]) => {
    const inner = field.kind === 'optional' ? field.shape : field;
    return { key, inner, required: field.kind !== 'optional', explain: compileExplain(inner) };
  });
  return (value, path, out) => {
    if (!isObject(value)) {
      report(out, path, shape, value);
      return;
    }
    for (const { key, inner, required, explain } of fields) {
      const field = value[key];
      if (field === undefined) {
        if (required) report(out, join(path, key), inner, field);
      } else explain(field, join(path, key), out);
    }
  };
}

/**
 * Compiles `shape` once into its explanation: every place a value fails the
 * shape (at most `maxIssues`, then one issue counting the rest), empty exactly
 * when the value has the shape. Paths are dotted (`data.options.0.name`), `''`
 * for the value itself. The yes-or-no check of a shape is emitted as code by
 * `shape-source.ts`, from the same description.
 */
export function compileIssues(shape: Shape, maxIssues = 10): (value: unknown) => ValidationIssue[] {
  const explain = compileExplain(shape);
  return (value) => {
    const out: Collector = { issues: [], max: maxIssues, more: 0 };
    explain(value, '', out);
    if (out.more > 0) out.issues.push({ path: '', message: `and ${out.more} more ${out.more === 1 ? 'issue' : 'issues'}` });
    return out.issues;
  };
}
