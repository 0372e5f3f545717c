/**
 * fast-check arbitraries for what goes into a request to the saved-URL API: query junk, field values
 * and bodies. `K3YK3Y` (and `K3YENC`, the key percent-encoded) stand for a valid API key: alphanumeric
 * tokens, so that they survive any encoding; requestArbitraries.renderRequest puts the real key in.
 */
import fc from 'fast-check';

export const KEY = 'K3YK3Y';
export const KEY_ENCODED = 'K3YENC';

export type Encoding = 'utf8' | 'utf16le' | 'latin1';
export type Body =
  | { text: string; encoding: Encoding }
  | { bytes: Uint8Array }
  /** A JSON or form body of exactly this many bytes (around the 64 KiB limit). */
  | { padTo: number; form: boolean };

export interface Content {
  contentType: string | undefined;
  body: Body | undefined;
}

/** Space-separated words as a constantFrom (for lists of tokens without spaces). */
const words = (list: string): fc.Arbitrary<string> => fc.constantFrom(...list.trim().split(/\s+/));

export const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 30,
});

/** Form encoding that, unlike encodeURIComponent, never throws (lone surrogates become U+FFFD). */
const formEncode = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9*\-._]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16)}`,
    )
    .join('');

// ---- query-string material

export const junk = fc.oneof(
  words('% %Z %zz %E0%A4 %FF%FE %00 %C0%AF %2525 + %2B %26 %3D && = == __proto__ constructor'),
  fc
    .uint8Array({ maxLength: 8 })
    .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  printable.map((s) => s.replace(/[#&]/g, '')),
);
const keyName = words('apiKey api_key api%5Fkey api%5fkey %61piKey apikey APIKEY api_key[]');
export const keyValue = fc.oneof(
  { weight: 4, arbitrary: fc.constant(KEY) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(KEY_ENCODED, '', `tdg_${'0'.repeat(76)}`, `${KEY}x`, `%20${KEY}`, 'tdg_'),
  },
  { weight: 2, arbitrary: junk },
);
export const queryPart = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(keyName, keyValue).map(([n, v]) => `${n}=${v}`) },
  { weight: 2, arbitrary: junk },
  { weight: 1, arbitrary: fc.tuple(junk, junk).map(([n, v]) => `${n}=${v}`) },
);

// ---- field values

export const urlValue = fc.oneof(
  { weight: 5, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      words(`ftp://example.com/ javascript:alert(1) http:// not-a-url //example.com/ http://[::1]/
        http://example.com:99999/ HTTP://EXAMPLE.COM/ http://example.com/?utm_source=x mailto:a@b.c`),
      fc.constantFrom(
        '',
        ' ',
        'https://exa mple.com/',
        'http://a.example/\u0000',
        'http://example.com/\u2028',
        ' https://example.com/trim ',
      ),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((s) => `http://example.com/${s}`),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 2040, max: 2060 }).map((n) => `http://example.com/${'a'.repeat(n - 19)}`),
  },
);
/** Valid http URLs holding control or unpaired characters that the URL parser accepts. */
export const oddUrl = fc
  .tuple(fc.constantFrom('\u0000', '\u0007', '\u001f', '\u007f', '\t', '\ud800', '\ufffe'), fc.boolean())
  .map(([c, inQuery]) => `http://odd.example/${inQuery ? '?q=' : ''}x${c}y`);
export const titleValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '   ', '\t\n', '\u0000', 'a\u0000b'),
  fc.integer({ min: 998, max: 1002 }).map((n) => 'é'.repeat(n)),
  fc.integer({ min: 998, max: 1002 }).map((n) => '😀'.repeat(n)),
);
const wrongType = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);
const keyField = fc.oneof({ weight: 3, arbitrary: fc.constant(KEY) }, { weight: 1, arbitrary: keyValue });

// ---- bodies

export const jsonText = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          url: fc.oneof({ weight: 5, arbitrary: urlValue }, { weight: 1, arbitrary: wrongType }),
          title: fc.oneof({ weight: 4, arbitrary: titleValue }, { weight: 1, arbitrary: wrongType }),
          api_key: fc.oneof(keyField, wrongType),
          other: fc.jsonValue({ maxDepth: 2 }),
        },
        { requiredKeys: [] },
      )
      .map((o) => JSON.stringify(o)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{',
      '{"url":',
      '[]',
      'null',
      '"http://x.example/"',
      '{"url":"http://x.example/","url":"http://y.example/"}',
      '{"__proto__":{"url":"http://x.example/"}}',
      '{"url":"http://x.example/","title":"\\ud800"}',
      ' {} ',
      '',
    ),
  },
);
export const formText = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 4, arbitrary: words('url title api_key apiKey') }, { weight: 1, arbitrary: junk }),
      fc.oneof(urlValue, titleValue, keyField, junk),
      fc.boolean(),
    ),
    { maxLength: 5 },
  )
  .map((pairs) =>
    pairs.map(([n, v, encode]) => (encode ? `${formEncode(n)}=${formEncode(v)}` : `${n}=${v}`)).join('&'),
  );

export const boundaryArb = fc.oneof(
  words('X ----WebKitFormBoundary7MA4YWxkTrZu0gW b--b'),
  fc.stringMatching(/^[A-Za-z0-9'()+_,.-]{1,70}$/),
);
const partArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(words('url title api_key x'), fc.oneof(urlValue, titleValue, keyField))
      .map(([n, v]) => `Content-Disposition: form-data; name="${n}"\r\n\r\n${v}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(words('url file'), printable)
      .map(
        ([n, v]) =>
          `Content-Disposition: form-data; name="${n}"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${v}`,
      ),
  },
  { weight: 1, arbitrary: printable.map((v) => `Content-Type: text/plain\r\n\r\n${v}`) },
);
/** Multipart bodies: field parts, file parts, parts without a name; sometimes too many, sometimes cut off. */
export const multipartText = (boundary: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.oneof(
        { weight: 9, arbitrary: fc.array(partArb, { maxLength: 4 }) },
        { weight: 1, arbitrary: fc.array(partArb, { minLength: 33, maxLength: 40 }) },
      ),
      fc.boolean(),
    )
    .map(
      ([parts, closed]) =>
        parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('') + (closed ? `--${boundary}--\r\n` : ''),
    );

export function multipartOf(boundary: string, fields: Record<string, string>): string {
  const parts = Object.entries(fields).map(
    ([n, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`,
  );
  return `${parts.join('')}--${boundary}--\r\n`;
}

const charsetArb = fc.constantFrom<[string, Encoding]>(
  ['', 'utf8'],
  ['; charset=utf-8', 'utf8'],
  ['; charset=UTF-8', 'utf8'],
  ['; charset="utf-8"', 'utf8'],
  ['; charset=utf-16le', 'utf16le'],
  ['; charset=iso-8859-1', 'latin1'],
  ['; charset=windows-1252', 'latin1'],
);

/** A body encoded as its Content-Type says (though its contents may be anything). */
export const coherentContent = fc.oneof<fc.Arbitrary<Content>[]>(
  fc
    .tuple(words('application/json Application/JSON application/vnd.api+json'), charsetArb, jsonText)
    .map(([type, [suffix, encoding], text]) => ({ contentType: type + suffix, body: { text, encoding } })),
  fc.tuple(charsetArb, formText).map(([[suffix, encoding], text]) => ({
    contentType: `application/x-www-form-urlencoded${suffix}`,
    body: { text, encoding },
  })),
  boundaryArb.chain((b) =>
    fc
      .tuple(
        fc.constantFrom(`boundary=${b}`, `boundary="${b}"`, `charset=utf-8; boundary=${b}`),
        multipartText(b),
      )
      .map(([param, text]) => ({
        contentType: `multipart/form-data; ${param}`,
        body: { text, encoding: 'utf8' },
      })),
  ),
  fc.tuple(fc.constantFrom(65535, 65536, 65537, 70000, 200000), fc.boolean()).map(([padTo, form]) => ({
    contentType: form ? 'application/x-www-form-urlencoded' : 'application/json',
    body: { padTo, form },
  })),
);

const anyContentType = fc.oneof(
  words(`application/json application/json;charset=bogus application/x-www-form-urlencoded;charset=klingon
    multipart/form-data multipart/form-data;boundary= multipart/form-data;boundary=X multipart/mixed;boundary=X
    text/plain application/octet-stream application/xml text/json */* image/png application/json;charset
    application/ /json json ; text/plain;charset=utf-8`),
  fc.constantFrom(' ', 'application/json, text/plain', 'application/json; charset=utf-8; charset=latin1'),
  printable,
);
const anyBody = fc.oneof(
  jsonText.map((text): Body => ({ text, encoding: 'utf8' })),
  formText.map((text): Body => ({ text, encoding: 'utf8' })),
  multipartText('X').map((text): Body => ({ text, encoding: 'utf8' })),
  fc.uint8Array({ maxLength: 2000 }).map((bytes): Body => ({ bytes })),
  fc
    .tuple(
      fc.webUrl(),
      fc.constantFrom([0xff], [0xc3, 0x28], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80]),
    )
    .map(([url, bad]): Body => ({
      bytes: Uint8Array.from([...Buffer.from(`{"url":"${url}","title":"`), ...bad, ...Buffer.from('"}')]),
    })),
);
/** Any Content-Type (or none) with any body (or none), independently. */
export const randomContent: fc.Arbitrary<Content> = fc
  .tuple(fc.option(anyContentType, { nil: undefined }), fc.option(anyBody, { nil: undefined }))
  .map(([contentType, body]) => ({ contentType, body }));

/** Mostly acceptable bodies, so that a good share of the POSTs get past validation and are saved. */
export const plausibleContent: fc.Arbitrary<Content> = fc
  .record({
    url: fc.oneof(
      { weight: 4, arbitrary: fc.webUrl({ withQueryParameters: true }) },
      // the same URL again, in forms that compare equal: exercises "already queued" and "title updated"
      {
        weight: 1,
        arbitrary: words('https://example.com/a https://EXAMPLE.com/a#x https://example.com/a?utm_source=y'),
      },
      { weight: 1, arbitrary: urlValue },
      { weight: 1, arbitrary: oddUrl },
    ),
    title: fc.option(titleValue, { nil: undefined }),
    as: words('json form multipart'),
  })
  .map(({ url, title, as }): Content => {
    const fields: Record<string, string> = title === undefined ? { url } : { url, title };
    if (as === 'json')
      return { contentType: 'application/json', body: { text: JSON.stringify(fields), encoding: 'utf8' } };
    if (as === 'multipart')
      return {
        contentType: 'multipart/form-data; boundary=p',
        body: { text: multipartOf('p', fields), encoding: 'utf8' },
      };
    const text = new URLSearchParams(fields).toString();
    return { contentType: 'application/x-www-form-urlencoded', body: { text, encoding: 'utf8' } };
  });
