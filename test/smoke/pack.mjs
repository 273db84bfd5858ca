// `npm pack` from a fresh copy of the repository (no dist/) must build the package
// (the prepack script), and the tarball installed in a new project must load through
// import() and require(), entry points included. What the README's Install section
// tells users to do before the package is on the registry.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(path.join(tmpdir(), 'ccsdk-pack-'));
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

try {
  // A clean copy: the files git knows (tracked, or new and not ignored), as a fresh clone has them; no dist/.
  const clone = path.join(work, 'clone');
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root).split('\0').filter(Boolean);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    try {
      cpSync(path.join(root, file), path.join(clone, file));
    } catch (error) {
      if (error.code !== 'ENOENT') throw error; // deleted in the working tree, not yet in git
    }
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
  assert.ok(!readdirSync(clone).includes('dist'), 'the copy starts without dist/');

  const tarball = run('npm', ['pack', '--silent', '--pack-destination', work], clone).trim().split('\n').at(-1);
  const listing = run('tar', ['-tzf', path.join(work, tarball)], work);
  for (const entry of [
    'package/dist/index.js',
    'package/dist/index.cjs',
    'package/dist/types/index.d.ts',
    'package/dist/types/index.d.cts',
    'package/dist/types/clients/client.d.ts',
    'package/dist/testing/index.js',
  ]) {
    assert.ok(listing.includes(entry), `the tarball holds ${entry} (prepack builds it)`);
  }

  // A new project installs the tarball, and loads it both ways.
  const app = path.join(work, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'pack-check', version: '1.0.0', private: true }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(work, tarball)], app);
  const esm = run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const m = await import('community-chat-sdk'); const t = await import('community-chat-sdk/testing'); console.log(typeof m.Client, typeof t.createEmulator);",
    ],
    app,
  ).trim();
  assert.equal(esm, 'function function');
  const cjs = run(
    process.execPath,
    ['-e', "const m = require('community-chat-sdk'); const t = require('community-chat-sdk/testing'); console.log(typeof m.Client, typeof t.createEmulator);"],
    app,
  ).trim();
  assert.equal(cjs, 'function function');
  // The declarations shipped are those an entry reaches (scripts/cjs-types.mjs): none names zod, whose types are no part of the API (issue 34).
  const declarations = run('find', [path.join(app, 'node_modules/community-chat-sdk/dist/types'), '-name', '*.d.*ts'], app)
    .trim()
    .split('\n');
  assert.ok(declarations.length > 50, `the installed package ships its declarations (found ${declarations.length})`);
  const namingZod = declarations.filter((file) => /(?:from\s*|import\s*\(\s*)['"]zod(?:\/[^'"]*)?['"]/.test(readFileSync(file, 'utf8')));
  assert.deepEqual(namingZod, [], `shipped declarations that import zod: ${namingZod.join(', ')}`);
  // Stack frames point into src/, which the package does not ship: its source maps carry the sources (issue 35).
  const maps = run('find', [path.join(app, 'node_modules/community-chat-sdk/dist'), '-name', '*.map'], app)
    .trim()
    .split('\n');
  const withServer = maps
    .map((file) => JSON.parse(readFileSync(file, 'utf8')))
    .find((map) => map.sources.some((source) => source.endsWith('src/testing/emulator/server.ts')));
  assert.ok(withServer, 'a source map of the installed package covers src/testing/emulator/server.ts');
  const at = withServer.sources.findIndex((source) => source.endsWith('src/testing/emulator/server.ts'));
  assert.match(String(withServer.sourcesContent?.[at]), /export async function createEmulator/, 'the map embeds the source of src/testing/emulator/server.ts');
  // The playground's page script was bundled at build time: the installed package serves it without esbuild.
  const page = run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { createRequire } from 'node:module'; let esbuild = 'absent'; try { createRequire(import.meta.url).resolve('esbuild'); esbuild = 'present'; } catch {} const t = await import('community-chat-sdk/testing'); const e = await t.createEmulator({ playground: true }); const r = await fetch(new URL('/_playground/app.js', e.playgroundUrl)); const text = await r.text(); await e.close(); console.log(esbuild, r.status, text.includes('new EventSource(') && !text.includes('import '));",
    ],
    app,
  ).trim();
  assert.equal(page, 'absent 200 true', 'the installed package serves the bundled playground script, with no esbuild to load');
  // Its types compile in both module systems, one readable declaration file per source file.
  writeFileSync(
    path.join(app, 'esm.mts'),
    "import { Client, type ClientOptions } from 'community-chat-sdk';\nimport { createEmulator } from 'community-chat-sdk/testing';\nconst options: ClientOptions = { baseUrl: 'http://localhost:8080' };\nexport const made: [Client, typeof createEmulator] = [new Client(options), createEmulator];\n",
  );
  writeFileSync(
    path.join(app, 'cjs.cts'),
    "import sdk = require('community-chat-sdk');\nexport const client: sdk.Client = new sdk.Client({ auth: { botToken: 't' } });\n",
  );
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  run(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--types',
      'node',
      '--typeRoots',
      path.join(root, 'node_modules', '@types'),
      'esm.mts',
      'cjs.cts',
    ],
    app,
  );
  console.log(
    `pack: npm pack from a copy without dist/ built ${tarball}; a new project installed it and loaded it through import() and require(), and its types compiled as ESM and CommonJS`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
