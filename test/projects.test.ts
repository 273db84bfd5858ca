/**
 * The suite's projects (test/projects.ts): every test file in one, nothing that starts Redis, a process or a browser in a unit
 * project, and only files that leave no state behind sharing a module graph (`unit-shared`).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { projectOf, testFilesByProject } from './projects.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// The markers are assembled, so that this file's own text holds none of them and it stays a unit test.
const marker = (...parts: string[]) => parts.join('');

describe('the test projects', () => {
  it('place a file by what it starts', () => {
    expect(projectOf('test/x.test.ts', `import { startRedisServer } from '../${marker('helpers/redis', '-server.js')}';`)).toBe('integration');
    expect(projectOf('test/x.test.ts', `import { startRedisCluster } from '../${marker('helpers/redis', '-cluster.js')}';`)).toBe('integration');
    expect(projectOf('test/integration/x.test.ts', '')).toBe('integration');
    expect(projectOf('test/x.test.ts', `const bot = await ${marker('start', 'Script(')}'bot.ts');`)).toBe('multi-process');
    expect(projectOf('test/x.test.ts', `import { spawn } from '${marker('node:child', '_process')}';`)).toBe('multi-process');
    expect(projectOf('test/x.test.ts', `import { ${marker('chrom', 'ium')} } from 'somewhere';`)).toBe('multi-process');
    expect(projectOf('test/gateway/workers.test.ts', '')).toBe('multi-process');
    expect(projectOf('test/gateway/reshard.test.ts', '')).toBe('integration');
    expect(projectOf('test/x.test.ts', "import { Client } from '../../src/index.js';")).toBe('unit-shared');
    for (const leaves of [
      marker('vi.use', 'FakeTimers();'),
      marker('vi.mo', "ck('node:crypto');"),
      marker('vi.stub', "Global('fetch', f);"),
      marker('const recorder = useMsw', 'Recorder();'),
      marker("import { http } from 'ms", "w';"),
      marker('process.env.', 'CI = "true";'),
      marker('expect(active', 'Timers()).toBe(before);'),
      marker('const unhandled = trackUnhandled', 'Rejections();'),
      marker('process.memory', 'Usage().heapUsed'),
    ])
      expect(projectOf('test/x.test.ts', `import { Client } from '../../src/index.js';\n${leaves}`), leaves).toBe('unit');
  });

  it('hold every test file once, and no unit file starts Redis, a process or a browser', () => {
    const byProject = testFilesByProject(root);
    const all = [...byProject['unit-shared'], ...byProject.unit, ...byProject.integration, ...byProject['multi-process']];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain('test/projects.test.ts');
    expect(all).toContain('examples/quiz-bot.test.ts');
    const heavy = [...byProject['unit-shared'], ...byProject.unit].filter((file) =>
      new RegExp(marker('redis-server\\.js|start', 'Script\\(|node:child', '_process|playwright', '-core')).test(readFileSync(`${root}/${file}`, 'utf8')),
    );
    expect(heavy).toEqual([]);
  });
});
