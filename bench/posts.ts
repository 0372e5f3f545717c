import type { Options } from 'autocannon';

const RUN_ID = `${process.pid}-${Date.now().toString(36)}`;
let counter = 0;

/**
 * autocannon requests for saved-URL POSTs (a form body), each with a URL no request of this process sent
 * before, so every one a server answers is a real insert, never a deduplicated save.
 */
export function distinctSaves(): NonNullable<Options['requests']> {
  return [
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      setupRequest: (req) => {
        const n = ++counter;
        const target = encodeURIComponent(`https://example.com/bench/${RUN_ID}/${n}`);
        return { ...req, body: `url=${target}&title=Bench+article+${n}` };
      },
    },
  ];
}
