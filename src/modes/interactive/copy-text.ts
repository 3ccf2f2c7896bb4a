/**
 * Putting text on the person's clipboard from the terminal UI: /copy and, in the
 * fullscreen layout, a mouse selection. Two routes, because neither reaches
 * every clipboard:
 *
 *  - the desktop's clipboard program (pbcopy, clip, wl-copy, xclip…; see
 *    extensions/clipboard-copy.ts), where there is a desktop: it says whether it
 *    worked;
 *  - the terminal's clipboard sequence (OSC 52), which a terminal, tmux
 *    (`set-clipboard on`) or an SSH client applies on the machine the person sits at.
 *    Nothing answers it, so it cannot say whether it worked.
 *
 * The program goes first where there is a desktop; the sequence is written when no
 * program copied (a server, a container) and always in a remote session (SSH, mosh,
 * or XCSH_CLIPBOARD_OSC52=1 / pi's PI_CLIPBOARD_OSC52=1), whose clipboard is the
 * client's. Where a desktop's program failed, the sequence is still sent but the
 * failure is reported: that terminal may well ignore it. A failure is a sentence to
 * show, never an exception.
 *
 * What is copied is the model's words, and it will be pasted, often into a shell: escape
 * sequences and control characters other than tab and line ends are dropped first. An
 * answer holding `ESC[201~` would otherwise end the shell's bracketed paste early, and
 * the lines after it would run as if typed.
 */
type Env = Record<string, string | undefined>;

/** Terminals refuse (or truncate) longer OSC 52 payloads; saying so beats a silent half copy. */
export const MAX_OSC52_BASE64 = 100_000;

export type CopyOutcome = { ok: true; via: string } | { ok: false; reason: string };

export interface CopyRoutes {
  /** Writes to the terminal (the OSC 52 sequence). */
  writeTerminal: (sequence: string) => void;
  env?: Env;
  platform?: NodeJS.Platform;
  /** The clipboard program route (a seam for tests of the rule; default: extensions/clipboard-copy.ts). */
  program?: (text: string) => Promise<void>;
}

/** A desktop clipboard a program can write to is there. */
function hasDesktop(env: Env, platform: NodeJS.Platform): boolean {
  if (platform === "darwin" || platform === "win32") return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY || env.WSL_DISTRO_NAME || env.WSL_INTEROP || env.TERMUX_VERSION);
}

function isRemote(env: Env): boolean {
  const forced = env.XCSH_CLIPBOARD_OSC52 ?? env.PI_CLIPBOARD_OSC52;
  return Boolean(env.SSH_CONNECTION || env.SSH_CLIENT || env.MOSH_CONNECTION || forced === "1");
}

/** ESC and the other C0/C1 controls, but tab, line feed and carriage return. */
const PASTE_UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;

export async function copyText(raw: string, routes: CopyRoutes): Promise<CopyOutcome> {
  const text = raw.replace(PASTE_UNSAFE, "");
  const env = routes.env ?? process.env;
  const platform = routes.platform ?? process.platform;
  const via: string[] = [];
  let programFailure: string | undefined;
  if (hasDesktop(env, platform)) {
    try {
      // Loaded on the first copy: nothing of it is needed to start.
      await (routes.program ?? (await import("../../extensions/clipboard-copy.ts")).copyToClipboard)(text);
      via.push("the clipboard program");
    } catch (error) {
      programFailure = (error as Error).message;
    }
  }
  if (via.length === 0 || isRemote(env)) {
    const payload = Buffer.from(text, "utf8").toString("base64");
    if (payload.length <= MAX_OSC52_BASE64) {
      routes.writeTerminal(`\x1b]52;c;${payload}\x07`);
      via.push("the terminal (OSC 52)");
    } else if (via.length === 0) {
      return { ok: false, reason: programFailure ?? `Too long for the terminal's clipboard sequence (${text.length.toLocaleString()} characters)` };
    }
  }
  if (programFailure) return { ok: false, reason: `${programFailure} (sent to the terminal as OSC 52 instead)` };
  return { ok: true, via: via.join(" and ") };
}
