import { fstatSync } from "node:fs";

/**
 * Piped input for `-p`: the text of a pipe or redirected file on fd 0. A
 * terminal or /dev/null is not input, so `xcsh -p "hi"` typed at a shell, or
 * run by CI with no stdin, never waits for it.
 */
export async function readPipedStdin(): Promise<string | undefined> {
  let piped = false;
  try {
    const stat = fstatSync(0);
    piped = stat.isFIFO() || stat.isFile() || stat.isSocket();
  } catch {
    return undefined;
  }
  if (!piped) return undefined;
  const text = await Bun.stdin.text();
  return text.trim() === "" ? undefined : text;
}
