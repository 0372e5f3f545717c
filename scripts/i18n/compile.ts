/**
 * npm run i18n:compile — checks the catalogues of src/i18n/messages/ and writes src/i18n/compiled/LANG.ts
 * (and en-XA.ts, the pseudo-locale made from English). With --check (npm run check:i18n), writes nothing
 * and exits 1 when a catalogue has a problem or a compiled file is not what its catalogue makes.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  COMPILED_DIR,
  PSEUDO,
  SOURCE,
  catalogueProblems,
  compileCatalogue,
  pseudoCatalogue,
  readCatalogues,
} from './catalogues.js';

const check = process.argv.includes('--check');
const catalogues = readCatalogues();
const problems = catalogueProblems(catalogues);
const source = catalogues.get(SOURCE);
if (source === undefined) problems.push(`${SOURCE}.json is missing`);

const wanted = new Map<string, string>();
for (const [code, messages] of catalogues) {
  wanted.set(`${code}.ts`, compileCatalogue(code, messages, `src/i18n/messages/${code}.json`));
}
if (source !== undefined) {
  wanted.set(
    `${PSEUDO}.ts`,
    compileCatalogue(PSEUDO, pseudoCatalogue(source), `src/i18n/messages/${SOURCE}.json (pseudo-locale)`),
  );
}

if (check) {
  for (const [file, text] of wanted) {
    const path = join(COMPILED_DIR, file);
    if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
      problems.push(`src/i18n/compiled/${file} is not what its catalogue makes: run npm run i18n:compile`);
    }
  }
  for (const file of readdirSync(COMPILED_DIR)) {
    if (!wanted.has(file)) problems.push(`src/i18n/compiled/${file} has no catalogue`);
  }
}
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
if (!check) {
  for (const [file, text] of wanted) writeFileSync(join(COMPILED_DIR, file), text);
  console.log(`compiled ${[...wanted.keys()].join(', ')}`);
} else console.log(`${catalogues.size} catalogues of ${Object.keys(source ?? {}).length} messages: all well`);
