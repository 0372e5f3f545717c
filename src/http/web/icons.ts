import { crc32, deflateSync } from 'node:zlib';

/**
 * The app's icons, drawn here rather than kept as binary files: a digest's three lines on the accent
 * colour. PNGs (what the web app manifest and Android need) are rendered once, on first request, by a
 * small rasteriser with 4×4 supersampling; the SVG is the same drawing for browsers' tabs.
 *
 * - `any`: a rounded square, the lines in the middle 60 %.
 * - `maskable`: full bleed (the platform cuts its own shape), the lines inside the safe zone (the middle
 *   80 % circle), as the maskable-icon spec asks.
 */

/** The stylesheet's accent (light scheme) and page background: the colours of the app's frame too. */
export const ICON_BACKGROUND = '#1f5f8b';
export const ICON_FOREGROUND = '#fdfcf9';

export type IconPurpose = 'any' | 'maskable';

/** The PNG icons served, by path. */
export const PNG_ICONS = [
  { path: '/icons/icon-192.png', size: 192, purpose: 'any' },
  { path: '/icons/icon-512.png', size: 512, purpose: 'any' },
  { path: '/icons/maskable-512.png', size: 512, purpose: 'maskable' },
  { path: '/icons/apple-touch-icon.png', size: 180, purpose: 'maskable' },
] as const satisfies readonly { path: string; size: number; purpose: IconPurpose }[];

export const SVG_ICON_PATH = '/icons/icon.svg';

/** The three bars, in units of the icon's side: [x, y, width, height], corners half the height. */
function bars(purpose: IconPurpose): [number, number, number, number][] {
  // The maskable icon's lines are smaller, to stay inside the safe zone.
  const scale = purpose === 'maskable' ? 0.75 : 1;
  const at = (x: number, y: number, w: number, h: number): [number, number, number, number] => [
    0.5 + (x - 0.5) * scale,
    0.5 + (y - 0.5) * scale,
    w * scale,
    h * scale,
  ];
  return [at(0.22, 0.28, 0.56, 0.1), at(0.22, 0.45, 0.56, 0.1), at(0.22, 0.62, 0.36, 0.1)];
}

/** Whether (x, y), in units of the side, is inside a rounded rectangle. */
function inRoundRect(x: number, y: number, rx: number, ry: number, w: number, h: number, r: number): boolean {
  if (x < rx || y < ry || x > rx + w || y > ry + h) return false;
  const cx = Math.min(Math.max(x, rx + r), rx + w - r);
  const cy = Math.min(Math.max(y, ry + r), ry + h - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

const rgb = (hex: string): [number, number, number] => [
  parseInt(hex.slice(1, 3), 16),
  parseInt(hex.slice(3, 5), 16),
  parseInt(hex.slice(5, 7), 16),
];

/** The icon as RGBA pixels, row by row. */
function draw(size: number, purpose: IconPurpose): Buffer {
  const back = rgb(ICON_BACKGROUND);
  const fore = rgb(ICON_FOREGROUND);
  const lines = bars(purpose);
  const corner = purpose === 'any' ? 0.18 : 0;
  const pixels = Buffer.alloc(size * size * 4);
  const n = 4; // samples per axis
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let shape = 0;
      let ink = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = (px + (sx + 0.5) / n) / size;
          const y = (py + (sy + 0.5) / n) / size;
          if (!inRoundRect(x, y, 0, 0, 1, 1, corner)) continue;
          shape++;
          if (lines.some(([bx, by, bw, bh]) => inRoundRect(x, y, bx, by, bw, bh, bh / 2))) ink++;
        }
      }
      const o = (py * size + px) * 4;
      const t = shape === 0 ? 0 : ink / shape;
      for (let c = 0; c < 3; c++) {
        pixels[o + c] = Math.round((back[c] ?? 0) * (1 - t) + (fore[c] ?? 0) * t);
      }
      pixels[o + 3] = Math.round((255 * shape) / (n * n));
    }
  }
  return pixels;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG file of RGBA pixels (8 bits a channel, no filter). */
export function encodePng(size: number, rgba: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(6, 9); // colour type: RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const rendered = new Map<string, Buffer>();

/** The PNG of one of PNG_ICONS, drawn on first use. */
export function iconPng(icon: { path: string; size: number; purpose: IconPurpose }): Buffer {
  let png = rendered.get(icon.path);
  if (png === undefined) {
    png = encodePng(icon.size, draw(icon.size, icon.purpose));
    rendered.set(icon.path, png);
  }
  return png;
}

/** The same drawing as SVG. */
export function iconSvg(): string {
  const rect = ([x, y, w, h]: [number, number, number, number]) =>
    `<rect x="${x * 100}" y="${y * 100}" width="${w * 100}" height="${h * 100}" rx="${h * 50}"/>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">` +
    `<rect width="100" height="100" rx="18" fill="${ICON_BACKGROUND}"/>` +
    `<g fill="${ICON_FOREGROUND}">${bars('any').map(rect).join('')}</g></svg>`
  );
}
