// The process users run: dist/app/main.js, the compiled CLI (dist/cli/main.js) and every module it loads
// bundled by esbuild into a few files, with the thread entries beside it under their own names (src/lib/
// threads.ts startThread resolves './NAME.js' beside its caller, and every output lands in one folder).
// Why (issue 26): Node keeps a record, a source string and a resolution for each ES module; an idle
// `serve` loading 670 of them held 83–86 MiB, the same code in a bundle 77–79 MiB, measured side by side.
// Native and optional modules stay outside (better-sqlite3, pg), as do the libraries loaded only at first
// use (src/lib/lazy.ts, createRequire): bundling them saves nothing at idle, and Node's own loading of
// them is what the tests check (undici bundled and imported lazily lost its named exports). Tests run the unbundled dist/ and one of them the bundle
// (src/cli/bundle.test.ts). Run by `npm run build`, after tsc.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const THREADS = [
  'dist/articles/extractWorker.js',
  'dist/feeds/subscribe/opmlWorker.js',
  'dist/digest/epub/epubWorker.js',
  'dist/imports/importWorker.js',
  'dist/store/searchWorker.js',
  'dist/newsletters/parseWorker.js',
];

rmSync('dist/app', { recursive: true, force: true });
await build({
  entryPoints: ['dist/cli/main.js', ...THREADS],
  outdir: 'dist/app',
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [
    'better-sqlite3',
    'pg',
    'pg-native',
    're2js',
    'undici',
    'nodemailer',
    'smtp-server',
    'imapflow',
    '@simplewebauthn/server',
  ],
  // A bundled CommonJS library calling require() needs one in an ES module.
  banner: {
    js: "import { createRequire as __tidingsRequire } from 'node:module'; const require = __tidingsRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
});
