/**
 * Reads a PNG back for the tests: checks the signature and every chunk's CRC,
 * and decodes 8-bit RGB images whose rows use filter 0 (what the simulator
 * writes) into pixels.
 */
import assert from "node:assert/strict";
import { crc32, inflateSync } from "node:zlib";

export interface DecodedPng {
  width: number;
  height: number;
  chunks: string[];
  pixel(x: number, y: number): [number, number, number];
  /** Every distinct colour, as "r,g,b". */
  colours(): Set<string>;
}

export function decodePng(file: Buffer): DecodedPng {
  assert.deepEqual([...file.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "PNG signature");
  const chunks: string[] = [];
  const data: Buffer[] = [];
  let header: Buffer | undefined;
  for (let at = 8; at < file.length;) {
    const length = file.readUInt32BE(at);
    const type = file.toString("latin1", at + 4, at + 8);
    const body = file.subarray(at + 8, at + 8 + length);
    assert.equal(file.readUInt32BE(at + 8 + length), crc32(file.subarray(at + 4, at + 8 + length)), `CRC of ${type}`);
    chunks.push(type);
    if (type === "IHDR") header = body;
    if (type === "IDAT") data.push(body);
    at += 12 + length;
  }
  assert.ok(header, "IHDR");
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  assert.deepEqual([...header.subarray(8)], [8, 2, 0, 0, 0], "8-bit RGB, deflate, filter method 0, no interlace");
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * 3 + 1;
  assert.equal(raw.length, stride * height, "one filter byte and width x 3 bytes per row");
  for (let row = 0; row < height; row++) assert.equal(raw[row * stride], 0, `row ${row} uses filter 0`);
  const pixel = (x: number, y: number): [number, number, number] => {
    const at = y * stride + 1 + x * 3;
    return [raw[at]!, raw[at + 1]!, raw[at + 2]!];
  };
  return {
    width,
    height,
    chunks,
    pixel,
    colours() {
      const seen = new Set<string>();
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) seen.add(pixel(x, y).join(","));
      return seen;
    },
  };
}
