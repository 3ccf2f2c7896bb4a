/**
 * How ai/ and auth/ start a program for xcsh itself: an AWS profile's credential_process,
 * an auth.json `!command` key. The rules for such programs (docs/security.md, "Programs
 * xcsh runs for itself") live in src/sandbox/own-programs.ts, a layer above, which hands
 * its launcher here when it is loaded — config's model registry loads it, so before any
 * request. Until then (these layers used alone, as a library) a program still starts from
 * the home folder, never the project, with the environment as it is.
 */
import { homedir } from "node:os";

export interface OwnProgramLaunch {
  cmd: string[];
  env: Record<string, string | undefined>;
  cwd: string;
}

export type OwnProgramLauncher = (argv: readonly string[]) => OwnProgramLaunch;

let launcher: OwnProgramLauncher = (argv) => ({ cmd: [...argv], env: process.env, cwd: homedir() });

/** Called by src/sandbox/own-programs.ts when it loads. */
export function installOwnProgramLauncher(own: OwnProgramLauncher): void {
  launcher = own;
}

/** What Bun.spawn needs to start `argv` as a program of xcsh's own; spread it into the options. */
export function ownProgramLaunch(argv: readonly string[]): OwnProgramLaunch {
  return launcher(argv);
}
