/**
 * A tiny PNG writer (node:zlib only): an RGB canvas with filled rectangles,
 * encoded as 8-bit truecolour, no interlace, every row with filter 0.
 */
import { crc32, deflateSync } from "node:zlib";

/** The eight bytes every PNG file starts with. */
export const PNG_SIGNATURE: Readonly<Buffer> = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export type Rgb = readonly [number, number, number];

export class Canvas {
  readonly pixels: Buffer;

  constructor(
    readonly width: number,
    readonly height: number,
    background: Rgb,
  ) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width * height > 16_000_000) {
      throw new RangeError(`canvas of ${width} x ${height} pixels`);
    }
    this.pixels = Buffer.alloc(width * height * 3);
    this.fill(0, 0, width, height, background);
  }

  /** Fills a rectangle, clipped to the canvas; coordinates are rounded to whole pixels. */
  fill(x: number, y: number, width: number, height: number, [r, g, b]: Rgb): void {
    const left = Math.max(0, Math.round(x));
    const top = Math.max(0, Math.round(y));
    const right = Math.min(this.width, Math.round(x + width));
    const bottom = Math.min(this.height, Math.round(y + height));
    for (let row = top; row < bottom; row++) {
      for (let column = left; column < right; column++) {
        const at = (row * this.width + column) * 3;
        this.pixels[at] = r;
        this.pixels[at + 1] = g;
        this.pixels[at + 2] = b;
      }
    }
  }

  /** A rectangle's outline, `thickness` pixels inside its edge. */
  outline(x: number, y: number, width: number, height: number, thickness: number, colour: Rgb): void {
    this.fill(x, y, width, thickness, colour);
    this.fill(x, y + height - thickness, width, thickness, colour);
    this.fill(x, y, thickness, height, colour);
    this.fill(x + width - thickness, y, thickness, height, colour);
  }

  pixel(x: number, y: number): Rgb {
    const at = (y * this.width + x) * 3;
    return [this.pixels[at]!, this.pixels[at + 1]!, this.pixels[at + 2]!];
  }

  toPng(): Buffer {
    return encodePng(this.width, this.height, this.pixels);
  }
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** Encodes `rgb` (3 bytes per pixel, rows top to bottom) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const stride = width * 3;
  if (rgb.length !== stride * height) throw new RangeError(`expected ${stride * height} bytes of pixels, got ${rgb.length}`);
  // Each row starts with its filter type: 0, none.
  const raw = Buffer.alloc((stride + 1) * height);
  for (let row = 0; row < height; row++) raw.set(rgb.subarray(row * stride, (row + 1) * stride), row * (stride + 1) + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // colour type: truecolour (RGB)
  header[10] = 0; // compression: deflate
  header[11] = 0; // filter method 0
  header[12] = 0; // no interlace
  return Buffer.concat([PNG_SIGNATURE, chunk("IHDR", header), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}
