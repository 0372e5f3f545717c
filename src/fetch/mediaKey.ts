import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DIRECT_MEDIA, type MediaLinks, mediaImgSrc, proxiedMedia } from '../lib/mediaUrl.js';
import { metaValueOrInsert } from '../store/meta.js';
import type { Database } from '../store/schema.js';

/*
 * The media proxy's key (lib/mediaUrl.ts signs with it): 256 random bits, made by whichever process needs
 * it first and kept in the database's `meta` table (row `media_proxy_key`), where the instance's other
 * one-time facts are kept. So it survives restarts (an email sent last month still shows its images), every
 * `serve` and `worker` on one PostgreSQL database signs and verifies alike, and a backup carries it. No
 * configuration to lose or to keep in step between instances; a stolen database lets the thief sign image
 * links, which lets them fetch images through the instance, nothing more.
 */

const KEY_ROW = 'media_proxy_key';
const KEY_BYTES = 32;

/** The instance's media key, made and stored when there is none yet. */
export async function mediaProxyKey(db: Kysely<Database>): Promise<Buffer> {
  const stored = await metaValueOrInsert(db, KEY_ROW, randomBytes(KEY_BYTES).toString('base64url'));
  const key = Buffer.from(stored, 'base64url');
  if (key.length < KEY_BYTES)
    throw new Error(`the meta row ${KEY_ROW} does not hold a ${KEY_BYTES}-byte key`);
  return key;
}

/** Whether and where images are proxied: read at each use (tests set the base URL once they listen). */
export interface MediaSettings {
  baseUrl: string;
  /** TIDINGS_MEDIA_PROXY (on unless the configuration says off). */
  proxy: boolean;
}

/**
 * A process's media links: the key read from the database once (again after a failure, such as the database
 * being unreachable at the time), the settings at each call. With the proxy off nothing is read.
 */
export class MediaSigner {
  private key: Promise<Buffer> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly settings: () => MediaSettings,
  ) {}

  /** The key, for the proxy's route to verify links with. */
  keyOf(): Promise<Buffer> {
    const key = (this.key ??= mediaProxyKey(this.db));
    key.catch(() => {
      if (this.key === key) this.key = undefined;
    });
    return key;
  }

  /** The CSP `img-src` of a page whose images are written by links() (no key needed). */
  imgSrc(): string {
    const { baseUrl, proxy } = this.settings();
    return mediaImgSrc(proxy ? baseUrl : null);
  }

  /** How images are written now. */
  async links(): Promise<MediaLinks> {
    const { baseUrl, proxy } = this.settings();
    return proxy ? proxiedMedia(await this.keyOf(), baseUrl) : DIRECT_MEDIA;
  }
}
