import packageJson from "../../package.json" with { type: "json" };

/** Replaced at build time by scripts/build.ts (`--define`); absent when run from source. */
declare const __XCSH_BUILD__: { commit: string; date: string } | undefined;

export const VERSION: string = packageJson.version;

export function versionText(): string {
  const build = typeof __XCSH_BUILD__ !== "undefined" ? __XCSH_BUILD__ : undefined;
  const origin = build ? `${build.commit} ${build.date}` : "source";
  return `xcsh ${VERSION} (${origin}; bun ${Bun.version}; ${process.platform}-${process.arch})`;
}
