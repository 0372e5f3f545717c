import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseFeed } from './parse.js';

const NOW = new Date('2024-06-01T00:00:00Z');
const images = (text: string | Buffer, url = 'https://pics.example/feed.xml'): (string | null)[] =>
  parseFeed(typeof text === 'string' ? Buffer.from(text) : text, { now: NOW, url }).items.map((i) => i.image);

test('RSS: media:thumbnail, Media RSS image content (also in a group), item itunes:image, image enclosure; absolute', () => {
  assert.deepEqual(images(readFileSync(new URL('testdata/images.xml', import.meta.url))), [
    'https://pics.example/thumbs/1.jpg', // a thumbnail before the full image, resolved against the feed
    'https://cdn.pics.example/2.webp',
    'https://pics.example/3.png', // the group's image, not its video
    'https://pics.example/episode-4.jpg', // the episode's own, not the show's; an audio enclosure is none
    'https://pics.example/photos/5.jpeg',
    null, // javascript: is no picture, nor is audio; the channel's itunes:image is not the item's
  ]);
});

test('Atom: media:thumbnail of an entry, resolved against xml:base', () => {
  const atom = `<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/" xml:base="https://blog.example/posts/">
  <title>Blog</title><id>urn:blog</id><updated>2024-05-01T00:00:00Z</updated>
  <entry><title>One</title><id>urn:1</id><updated>2024-05-01T00:00:00Z</updated><link href="one"/>
    <media:thumbnail url="img/one.png"/></entry>
  <entry><title>Two</title><id>urn:2</id><updated>2024-05-01T00:00:00Z</updated><link href="two"/>
    <link rel="enclosure" type="image/gif" href="two.gif"/></entry>
  <entry><title>Three</title><id>urn:3</id><updated>2024-05-01T00:00:00Z</updated><link href="three"/></entry>
</feed>`;
  assert.deepEqual(images(atom), [
    'https://blog.example/posts/img/one.png',
    'https://blog.example/posts/two.gif',
    null,
  ]);
});

test('JSON Feed: image, else banner_image; relative ones resolve against the feed', () => {
  const json = JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1',
    title: 'J',
    items: [
      { id: '1', url: 'https://j.example/1', content_text: 'a', image: '/i/1.png', banner_image: '/b/1.png' },
      {
        id: '2',
        url: 'https://j.example/2',
        content_text: 'b',
        banner_image: 'https://cdn.j.example/b2.jpg',
      },
      { id: '3', url: 'https://j.example/3', content_text: 'c', image: 'ftp://j.example/3.png' },
    ],
  });
  assert.deepEqual(images(json, 'https://j.example/feed.json'), [
    'https://j.example/i/1.png',
    'https://cdn.j.example/b2.jpg',
    null,
  ]);
});

test('a known tracker’s image is no picture: the next candidate is taken, else none', () => {
  const json = JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1',
    title: 'J',
    items: [
      {
        id: '1',
        url: 'https://j.example/1',
        content_text: 'a',
        image: 'https://pixel.wp.com/g.gif?blog=1',
        banner_image: '/b/1.png',
      },
      {
        id: '2',
        url: 'https://j.example/2',
        content_text: 'b',
        image: 'https://feeds.feedburner.com/~r/J/~4/x',
      },
    ],
  });
  assert.deepEqual(images(json, 'https://j.example/feed.json'), ['https://j.example/b/1.png', null]);
});
