/**
 * The terminal face of `xcsh config` (a bare `xcsh config` on a terminal): one list of
 * every resource of the packages declared in one scope, with ↑/↓ (or k/j) to move,
 * Space/Enter to switch the resource under the cursor on or off, Tab to switch between
 * the user's and the project's settings, and q/Esc (or Ctrl-C) to leave. Each switch is
 * written at once through the same `setResourceEnabled` the `enable`/`disable` commands
 * use, so leaving never loses a change. Plain raw-mode key reading and ANSI redraws: no
 * full TUI is loaded for a list.
 */
import { declarationsOf, readSettingsObject, type PackageDeclaration } from "./declarations.ts";
import { installedRoot, scopePlaces, type PackageScope, type ScopePlaces } from "./locations.ts";
import { setResourceEnabled } from "./config-command.ts";
import { packageResources, type PackageResource } from "./package-resources.ts";

interface Row {
  declaration: PackageDeclaration;
  resource: PackageResource;
}

interface ScopeView {
  places: ScopePlaces;
  settings: Record<string, unknown>;
  /** Lines to print: a package heading (no row) or a resource (its row). */
  lines: { text: string; row?: Row }[];
  rows: Row[];
  error?: string;
}

export async function runConfigDialog(cwd: string, agentDir: string, startScope: PackageScope): Promise<number> {
  const stdin = process.stdin;
  const out = process.stdout;
  let scope = startScope;
  let cursor = 0;
  let message = "";
  let view = loadScope(scope, cwd, agentDir);

  const render = () => {
    const lines: string[] = [];
    const other = scope === "user" ? "project" : "user";
    lines.push(`\x1b[1mPackage resources: ${scope === "user" ? "User" : "Project"}\x1b[0m (${view.places.settingsFile})`);
    lines.push(`\x1b[2m↑/↓ move · Space/Enter switch on/off · Tab ${other} · q/Esc quit (changes are saved as you make them)\x1b[0m`, "");
    if (view.error) lines.push(`  ! ${view.error}`);
    else if (view.rows.length === 0) lines.push("  (no package resources declared in this scope)");
    for (const line of view.lines) {
      if (!line.row) {
        lines.push(line.text);
        continue;
      }
      const selected = view.rows[cursor] === line.row;
      lines.push(`${selected ? "\x1b[7m>" : " "} ${line.text}${selected ? "\x1b[0m" : ""}`);
    }
    if (message) lines.push("", message);
    out.write("\x1b[H\x1b[2J" + lines.join("\r\n") + "\r\n");
  };

  const onKey = (key: string): boolean => {
    message = "";
    if (key === "q" || key === "\x1b" || key === "\x03") return false;
    if (key === "\t") {
      scope = scope === "user" ? "project" : "user";
      view = loadScope(scope, cwd, agentDir);
      cursor = 0;
    } else if (key === "\x1b[A" || key === "k") cursor = Math.max(0, cursor - 1);
    else if (key === "\x1b[B" || key === "j") cursor = Math.min(Math.max(0, view.rows.length - 1), cursor + 1);
    else if ((key === " " || key === "\r" || key === "\n") && view.rows[cursor]) {
      const row = view.rows[cursor]!;
      try {
        setResourceEnabled(view.places, view.settings, row.declaration, row.resource, !row.resource.enabled);
        message = `${row.resource.enabled ? "Disabled" : "Enabled"} ${row.resource.kind} ${row.resource.name}`;
      } catch (error) {
        message = `Could not save: ${(error as Error).message}`;
      }
      view = loadScope(scope, cwd, agentDir);
      cursor = Math.min(cursor, Math.max(0, view.rows.length - 1));
    }
    return true;
  };

  out.write("\x1b[?1049h\x1b[?25l"); // the alternate screen, cursor hidden: the shell's screen comes back on exit
  stdin.setRawMode(true);
  stdin.resume();
  render();
  await new Promise<void>((done) => {
    stdin.on("data", (chunk: Buffer) => {
      // Keys typed quickly (or pasted) arrive together: each is handled in turn.
      const going = splitKeys(chunk.toString("utf8")).every(onKey);
      if (!going) {
        stdin.setRawMode(false);
        stdin.pause();
        out.write("\x1b[?25h\x1b[?1049l");
        done();
        return;
      }
      render();
    });
  });
  return 0;
}

function loadScope(scope: PackageScope, cwd: string, agentDir: string): ScopeView {
  const places = scopePlaces(scope, cwd, agentDir);
  const view: ScopeView = { places, settings: {}, lines: [], rows: [] };
  try {
    view.settings = readSettingsObject(places.settingsFile);
  } catch (error) {
    view.error = (error as Error).message;
    return view;
  }
  if (view.settings.packages !== undefined && !Array.isArray(view.settings.packages)) {
    view.error = `"packages" must be a list of sources; fix ${places.settingsFile} first`;
    return view;
  }
  for (const declaration of declarationsOf(view.settings, places.baseDir).declarations) {
    view.lines.push({ text: `  ${declaration.source.typed}` });
    const resources = packageResources(installedRoot(declaration.source, places), declaration.filters);
    if (resources.length === 0) view.lines.push({ text: "      (not installed, or a single file: nothing to choose)" });
    for (const resource of resources) {
      const row = { declaration, resource };
      view.rows.push(row);
      view.lines.push({ text: `    [${resource.enabled ? "x" : " "}] ${resource.kind.padEnd(10)} ${resource.name}`, row });
    }
  }
  return view;
}

/** One chunk of terminal input as keys: CSI/SS3 sequences (arrows) whole, a lone Esc, or one character. */
export function splitKeys(chunk: string): string[] {
  const keys: string[] = [];
  for (let index = 0; index < chunk.length; ) {
    const sequence = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(chunk.slice(index));
    const key = sequence ? sequence[0] : chunk[index]!;
    keys.push(key);
    index += key.length;
  }
  return keys;
}
