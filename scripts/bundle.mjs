// The process users run: dist/app/main.js, the compiled CLI (dist/cli/main.js) and every module it loads
// bundled by esbuild into a few files, with the thread entries beside it under their own names (src/lib/
// threads.ts startThread resolves './NAME.js' beside its caller, and every output lands in one folder).
// Why (issue 26): Node keeps a record, a source string and a resolution for each ES module; an idle
// `serve` loading 670 of them held 83–86 MiB, the same code in a bundle 77–79 MiB, measured side by side.
// Native and optional modules stay outside (better-sqlite3, pg), as do the libraries loaded only at first
// use (src/lib/lazy.ts, createRequire): bundling them saves nothing at idle, and Node's own loading of
// them is what the tests check (undici bundled and imported lazily lost its named exports). Tests run the unbundled dist/ and one of them the bundle
// (src/cli/bundle.test.ts). Run by `npm run build`, after tsc.
import { readdirSync, rmSync } from 'node:fs';
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
    // Its CJK tables (400 KB) are required at the first use of their encoding: inlined in a chunk, they
    // were source text held from start.
    'iconv-lite',
  ],
  // A bundled CommonJS library calling require() needs one in an ES module.
  banner: {
    js: "import { createRequire as __tidingsRequire } from 'node:module'; const require = __tidingsRequire(import.meta.url);",
  },
  legalComments: 'none',
  // Whitespace and syntax only, names kept (stack traces still name functions): V8 holds every loaded
  // file's source text for as long as the process runs, 7.5 MB of it at idle unminified, 5.4 minified
  // (issue 36; idle serve 2.5 MiB less resident, bench:footprint).
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});

// The catalogues of every language but English, each a file of its own beside the bundle: src/i18n/
// languages.ts requires one at its first use (./compiled/CODE.js from wherever its code was bundled to).
await build({
  entryPoints: readdirSync('dist/i18n/compiled')
    .filter((f) => f.endsWith('.js') && f !== 'en.js')
    .map((f) => `dist/i18n/compiled/${f}`),
  outdir: 'dist/app/compiled',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
