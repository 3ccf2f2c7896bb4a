/**
 * `copyToClipboard(text)` for extensions: hands the text to the platform's
 * clipboard program — pbcopy on macOS, clip on Windows, clip.exe under WSL,
 * wl-copy on Wayland, xclip or xsel under X11, termux-clipboard-set on Android —
 * trying each that is installed until one succeeds. With none, the error says
 * which programs were looked for and what to install. Each is a program of xcsh's own
 * (src/sandbox/own-programs.ts): looked up on an absolute-only PATH, started from the
 * home folder, without the provider keys.
 */
import { ownProgram, whichOwnProgram } from "../sandbox/own-programs.ts";

type Env = Record<string, string | undefined>;

/** The programs to try, best first, for this platform and session. */
export function clipboardWriters(env: Env = process.env, platform: NodeJS.Platform = process.platform): string[][] {
  if (platform === "darwin") return [["pbcopy"]];
  if (platform === "win32") return [["clip"]];
  const writers: string[][] = [];
  if (env.WSL_DISTRO_NAME || env.WSL_INTEROP) writers.push(["clip.exe"]);
  if (env.WAYLAND_DISPLAY) writers.push(["wl-copy"]);
  writers.push(["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"], ["termux-clipboard-set"]);
  return writers;
}

export async function copyToClipboard(text: string): Promise<void> {
  if (typeof text !== "string") throw new TypeError("copyToClipboard(text): text must be a string");
  const writers = clipboardWriters();
  const failures: string[] = [];
  for (const [program, ...args] of writers) {
    if (!whichOwnProgram(program!)) continue;
    const proc = Bun.spawn({ ...ownProgram([program!, ...args]), stdin: new Blob([text]), stdout: "ignore", stderr: "pipe" });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    if (code === 0) return;
    failures.push(`${program} exited with ${code}${stderr.trim() ? `: ${stderr.trim().split("\n")[0]}` : ""}`);
  }
  const tried = writers.map((writer) => writer[0]).join(", ");
  if (failures.length > 0) throw new Error(`Copying to the clipboard failed (${failures.join("; ")})`);
  throw new Error(`No clipboard program found (looked for ${tried}): install one, e.g. wl-clipboard on Wayland or xclip on X11`);
}
