import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';

/** A fixture of this folder, as bytes. */
export const fixture = (name: string): Uint8Array => readFileSync(new URL(name, import.meta.url));

/** Omnivore's export layout: two metadata files and the content of two items (by slug and by id). */
export function omnivoreZip(): Uint8Array {
  const meta0 = [
    {
      id: 'a1',
      slug: 'deep-sea-vents',
      title: 'Deep sea vents',
      url: 'https://vents.example/deep',
      labels: ['Ocean', 'science'],
      savedAt: '2023-02-03T04:05:06.000Z',
      state: 'Archived',
      description: 'Life without sunlight.',
      author: 'Mar Abyss',
      publishedAt: '2023-01-01T00:00:00.000Z',
      thumbnail: 'https://vents.example/t.jpg',
    },
    { id: 'b2', slug: 'no-content', title: 'No content', url: 'https://plain.example/', labels: [], savedAt: '2023-03-01T00:00:00.000Z', state: 'Succeeded' },
  ];
  const meta1 = [
    { id: 'c3', slug: 'x', title: 'By id', url: 'https://byid.example/', savedAt: '2024-01-01T00:00:00.000Z', state: 'Succeeded' },
    { id: 'd4', title: 'No url' },
  ];
  return zipSync({
    'metadata_0_to_1.json': strToU8(JSON.stringify(meta0)),
    'metadata_2_to_3.json': strToU8(JSON.stringify(meta1)),
    'content/deep-sea-vents.html': strToU8(
      '<html><body><article><h1>Vents</h1><p>Hydrothermal vents host whole <em>ecosystems</em>.</p><iframe src="https://evil.example/"></iframe></article></body></html>',
    ),
    'content/c3.html': strToU8('<p>Found by the item id.</p>'),
  });
}

/** Pocket's zip: two CSV parts. */
export function pocketZip(): Uint8Array {
  const header = 'title,url,time_added,tags,status\n';
  return zipSync({
    'part_000000.csv': strToU8(`${header}One,https://zip.example/1,1609459200,a,unread\n`),
    'part_000001.csv': strToU8(`${header}Two,https://zip.example/2,1609459300,b|c,archive\nOne again,https://zip.example/1,1600000000,d,unread\n`),
  });
}
