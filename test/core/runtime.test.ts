import { describe, expect, it } from 'vitest';
import { currentRuntime, defaultTransportFor, detectRuntime, gatewayRunsOn, undiciRunsOn } from '../../src/core/runtime.js';

/** What each runtime's globals look like, as far as the detection reads them (Bun and Deno carry Node's process shim). */
const node = { process: { versions: { node: '20.19.0' } }, navigator: { userAgent: 'Node.js/20' } };
const bun = { Bun: { version: '1.4.5' }, process: { versions: { node: '24.3.0', bun: '1.4.5' } }, navigator: { userAgent: 'Bun/1.4.5' } };
const deno = { Deno: { version: { deno: '2.9.6' } }, process: { versions: { node: '24.2.0' } }, navigator: { userAgent: 'Deno/2.9.6' } };
const workerd = { navigator: { userAgent: 'Cloudflare-Workers' }, process: { versions: { node: '22.0.0' } } };

describe('runtime detection', () => {
  it('tells each runtime by what it is, not by the Node shims it carries', () => {
    expect(detectRuntime(node)).toBe('node');
    expect(detectRuntime(bun)).toBe('bun');
    expect(detectRuntime({ process: bun.process })).toBe('bun'); // process.versions.bun alone says Bun
    expect(detectRuntime({ Bun: bun.Bun })).toBe('bun'); // so does Bun.version alone
    expect(detectRuntime({ ...node, Bun: {} }), 'Node with a stray globalThis.Bun = {}').toBe('node');
    expect(detectRuntime({ ...node, Bun: { version: 1 } }), 'Node with a Bun whose version is not a string').toBe('node');
    expect(detectRuntime(deno)).toBe('deno');
    expect(detectRuntime(workerd)).toBe('workerd'); // nodejs_compat gives a process too
    expect(detectRuntime({ navigator: { userAgent: 'Mozilla/5.0' } })).toBe('other');
    expect(detectRuntime({})).toBe('other');
  });

  it('vitest runs on Node', () => {
    expect(currentRuntime()).toBe('node');
  });

  it('the default transport is undici only on Node, and never in the edge build', () => {
    expect(defaultTransportFor('node')).toBe('undici');
    expect(defaultTransportFor('node', false)).toBe('undici');
    for (const runtime of ['bun', 'deno', 'workerd', 'other'] as const) expect(defaultTransportFor(runtime), runtime).toBe('fetch');
    for (const runtime of ['node', 'bun', 'deno', 'workerd', 'other'] as const)
      expect(defaultTransportFor(runtime, true), `${runtime}, edge build`).toBe('fetch');
  });

  it('the Gateway runs everywhere but workerd in the main build, and nowhere in the edge build', () => {
    const runtimes = ['node', 'bun', 'deno', 'workerd', 'other'] as const;
    expect(runtimes.filter((runtime) => gatewayRunsOn(runtime))).toEqual(['node', 'bun', 'deno', 'other']);
    expect(runtimes.filter((runtime) => gatewayRunsOn(runtime, true))).toEqual([]);
  });

  it("undici runs where it is the real one: Node, and Deno (from npm), not Bun's shim nor workerd", () => {
    expect(['node', 'bun', 'deno', 'workerd', 'other'].filter((runtime) => undiciRunsOn(runtime as never))).toEqual(['node', 'deno']);
  });
});
