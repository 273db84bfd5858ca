/**
 * The page's script, `/_playground/app.js`: `../browser/main.ts` and what
 * it imports, type-checked with the DOM's types and bundled by esbuild into
 * one ES module.
 *
 * Run from source (the tests, `tsx`), it is bundled on first request with
 * esbuild, a development dependency. In the package, `tsup.config.ts`
 * replaces this module with the text bundled at build time, so the package
 * never loads esbuild.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/** How the page's script is bundled, from source and at build time alike. */
export const PAGE_SCRIPT_BUILD = {
  entryPoints: [fileURLToPath(new URL('../browser/main.ts', import.meta.url))],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  charset: 'utf8',
  legalComments: 'none',
  logLevel: 'silent',
} satisfies BuildOptions;

let bundled: string | undefined;

/** The page's script (bundled once per process). */
export function pageScript(): string {
  if (bundled === undefined) {
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
    const text = esbuild.buildSync(PAGE_SCRIPT_BUILD).outputFiles[0]?.text;
    if (!text) throw new Error('the playground script bundled to nothing');
    bundled = text;
  }
  return bundled;
}
