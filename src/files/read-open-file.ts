/**
 * The whole of an open regular file, `size` bytes as its fstat gave them, read from the
 * descriptor already judged (a regular file, not too large). Readers that refuse pipes and
 * huge files open without blocking and ask the descriptor what it is; then they read
 * through that same descriptor, so the file judged is the file read.
 */
import { readSync } from "node:fs";

export function readOpenFile(descriptor: number, size: number): Buffer {
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < buffer.length) {
    const read = readSync(descriptor, buffer, filled, buffer.length - filled, filled);
    if (read === 0) break; // the file shrank since fstat: what is there is the file
    filled += read;
  }
  return buffer.subarray(0, filled);
}
