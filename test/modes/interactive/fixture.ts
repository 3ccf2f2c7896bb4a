/**
 * One interactive session per test: a private home whose models.json points at
 * a fresh fake LLM server, a scratch project folder, and the built binary in a
 * tmux pane there. `withPane` waits until the editor is live (the footer
 * names the model), runs the test, and removes everything whatever happens.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFakeModelHome, type FakeModelHome } from "../../support/cli.ts";
import { XcshPane } from "./tmux.ts";

export interface Fixture {
  fake: FakeModelHome;
  project: string;
  pane: XcshPane;
}

export interface PaneSetup {
  args?: string[];
  env?: Record<string, string>;
  before?: (fake: FakeModelHome, project: string) => Promise<void> | void;
  width?: number;
  height?: number;
  /** Text on screen that says the session is ready (default: the model in the footer). */
  ready?: string;
  /** The fake provider's models (default MODELS); the session uses the first. */
  models?: Record<string, unknown>[];
}

export const MODELS = [
  { id: "m", contextWindow: 100_000 },
  { id: "m2", contextWindow: 200_000 },
  { id: "r", contextWindow: 100_000, reasoning: true },
];

export async function withPane(run: (fixture: Fixture) => Promise<void>, options: PaneSetup = {}): Promise<void> {
  const models = options.models ?? MODELS;
  const model = `fake/${String(models[0]!.id)}`;
  const fake = await makeFakeModelHome(models);
  const project = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
  let pane: XcshPane | undefined;
  try {
    await options.before?.(fake, project);
    pane = XcshPane.start({ args: ["--model", model, ...(options.args ?? [])], env: { ...fake.home.env, ...options.env }, cwd: project, width: options.width, height: options.height });
    await pane.waitFor(options.ready ?? model);
    await run({ fake, project, pane });
  } finally {
    pane?.kill();
    await fake.cleanup();
    rmSync(project, { recursive: true, force: true });
  }
}

/** The prompt line is the editor's: typed text then Enter. */
export function send(pane: XcshPane, text: string): void {
  pane.type(text);
  pane.keys("Enter");
}

/** A `-e` extension written into the project before the session starts. */
export function withExtension(source: string, name = "ext.ts"): Pick<PaneSetup, "args" | "before"> {
  return { args: ["-e", name], before: (_fake, project) => writeFileSync(join(project, name), source) };
}

/** tmux's newest paste buffer (where `set-clipboard on` puts an OSC 52 copy), polled until there is one. */
export async function pasteBuffer(pane: XcshPane, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const buffer = pane.tmux(["show-buffer"]);
      if (buffer) return buffer;
    } catch {
      // no buffer yet
    }
    await Bun.sleep(50);
  }
  return "";
}

/** The prompt editor's lines: between the two horizontal rules above the footer. */
export function editorText(screen: string): string {
  const lines = screen.split("\n");
  const rules = lines.map((line, index) => (/^─{10,}/.test(line) ? index : -1)).filter((index) => index >= 0);
  if (rules.length < 2) return "";
  return lines
    .slice(rules.at(-2)! + 1, rules.at(-1)!)
    .map((line) => line.trim())
    .filter(Boolean)
    .join("\n");
}

/** The screen without trailing blanks, for "what is on the last lines" checks. */
export function visibleLines(screen: string): string[] {
  return screen.split("\n").map((line) => line.trimEnd());
}

/**
 * No desktop clipboard and no SSH session, whatever the machine running the tests has: the
 * terminal's clipboard sequence (OSC 52) is then the only copy route (src/modes/interactive/copy-text.ts).
 */
export const NO_DESKTOP_ENV: Record<string, string> = Object.fromEntries(
  ["DISPLAY", "WAYLAND_DISPLAY", "WSL_DISTRO_NAME", "WSL_INTEROP", "TERMUX_VERSION", "SSH_CONNECTION", "SSH_CLIENT", "MOSH_CONNECTION", "XCSH_CLIPBOARD_OSC52", "PI_CLIPBOARD_OSC52"].map((name) => [name, ""]),
);
