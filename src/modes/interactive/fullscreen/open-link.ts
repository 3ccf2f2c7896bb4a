/**
 * A link clicked in the fullscreen transcript. The terminal cannot open it there —
 * the mouse is xcsh's — so pi-tui hands the click's OSC 8 address to xcsh, which
 * asks the desktop's opener: `open` on macOS, `rundll32 url.dll` on Windows (never a
 * shell, which would read `&` and `|` in the address), `xdg-open` elsewhere. It runs
 * as a program of xcsh's own (sandbox/own-programs.ts) and is given a few seconds.
 *
 * Only web and mail addresses (http, https, mailto) are opened. The links come from
 * the model's answers and tool output: a link's text may say one thing and point at
 * another, and a click must not start whatever program a `file:` path or a custom
 * scheme would. Anything else gets a short reason instead.
 */
import { ownProgram } from "../../../sandbox/own-programs.ts";

export type OpenOutcome = { ok: true } | { ok: false; reason: string };

const OPENED_SCHEMES = new Set(["http:", "https:", "mailto:"]);
const OPENER_TIMEOUT_MS = 10_000;
const WEB_AND_MAIL_ONLY = "Only web and mail links are opened";

/**
 * The address as the opener gets it (parsed and written back, so no stray whitespace or
 * unencoded character reaches it), or why it is not opened. A mail link that asks to
 * attach a file (`?attach=~/.ssh/id_rsa`, which some mail programs honour) is refused too:
 * one click would put a local file in a draft.
 */
export function linkToOpen(url: string): { href: string } | { reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { reason: WEB_AND_MAIL_ONLY };
  }
  if (!OPENED_SCHEMES.has(parsed.protocol)) return { reason: WEB_AND_MAIL_ONLY };
  if (parsed.protocol === "mailto:" && /(?:^|&)attach(?:ment)?=/i.test(parsed.search.slice(1))) return { reason: "A mail link that attaches a file is not opened" };
  return { href: parsed.href };
}

export function openableLink(url: string): boolean {
  return "href" in linkToOpen(url);
}

function openerFor(url: string, platform: NodeJS.Platform): string[] {
  if (platform === "darwin") return ["open", url];
  if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler", url];
  return ["xdg-open", url];
}

export async function openLink(url: string, platform: NodeJS.Platform = process.platform): Promise<OpenOutcome> {
  const link = linkToOpen(url);
  if ("reason" in link) return { ok: false, reason: link.reason };
  const href = link.href;
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn({ ...ownProgram(openerFor(href, platform)), stdin: "ignore", stdout: "ignore", stderr: "ignore", timeout: OPENER_TIMEOUT_MS });
  } catch {
    return { ok: false, reason: `No ${openerFor(href, platform)[0]} to open links with` };
  }
  const code = await proc.exited;
  return code === 0 ? { ok: true } : { ok: false, reason: `Could not open the link (${openerFor(href, platform)[0]} exited with ${code})` };
}
