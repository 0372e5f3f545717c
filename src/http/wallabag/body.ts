import { MIMEType } from 'node:util';
import { WallabagError } from './errors.js';

/*
 * A wallabag request's parameters, from a JSON or a form body, as the clients send them: KOReader and
 * Wallabagger JSON (`"archive": 1`, `"tags": "a,b"`, `"starred": true`), the Android app's library forms.
 * Every value becomes text: numbers and booleans as "1"/"0", a list of labels joined with commas.
 */

const MAX_FIELDS = 32;

export function readWallabagBody(contentType: string | undefined, body: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (!Buffer.isBuffer(body) || body.length === 0) return fields;
  let essence = '';
  try {
    essence = new MIMEType(contentType ?? '').essence;
  } catch {
    essence = '';
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new WallabagError(400, 'the body is not valid UTF-8');
  }
  if (essence === 'application/x-www-form-urlencoded') {
    for (const [k, v] of new URLSearchParams(text)) {
      if (fields.size >= MAX_FIELDS) break;
      fields.set(k.endsWith('[]') ? k.slice(0, -2) : k, v);
    }
    return fields;
  }
  if (essence === 'application/json' || essence.endsWith('+json') || /^\s*\{/.test(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new WallabagError(400, 'the body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new WallabagError(400, 'the JSON body must be an object');
    }
    for (const [k, v] of Object.entries(parsed)) {
      if (fields.size >= MAX_FIELDS) break;
      const value = asText(v);
      if (value !== null) fields.set(k, value);
    }
    return fields;
  }
  throw new WallabagError(415, 'send the parameters as JSON or as a form');
}

function asText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (Array.isArray(v)) {
    const labels = (v as unknown[]).map((t: unknown): unknown =>
      typeof t === 'object' && t !== null && 'label' in t ? t.label : t,
    );
    return labels.filter((t): t is string => typeof t === 'string').join(',');
  }
  return null;
}

/** A flag as wallabag reads one: "1"/"true" on, "0"/"false"/"" off; undefined when absent. */
export function flag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false' || v === '') return false;
  throw new WallabagError(400, `expected 1 or 0, got "${value.slice(0, 20)}"`);
}

/** A comma-separated list of tag labels; undefined when absent. */
export function tagsParam(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').filter((t) => t.trim() !== '');
}
