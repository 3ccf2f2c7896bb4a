/**
 * What the package tests install from, built offline in the test's temp home: a fake npm
 * registry (Bun.serve answering packuments and tarballs the way registry.npmjs.org does,
 * with `dist.integrity` and `dist.shasum` computed from the tarball) and a local git
 * repository reached through git's own `url.<base>.insteadOf`, so pi's
 * `git:<host>/<owner>/<repo>` form is used exactly as a person types it.
 */
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** A package's files, by path relative to its root. */
export type PackageFiles = Record<string, string>;

export function writeFiles(root: string, files: PackageFiles): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function run(argv: string[], cwd: string): void {
  const result = Bun.spawnSync(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${result.stderr.toString()}`);
}

/** An npm tarball: the package's files under a top-level `package/` folder, gzipped. */
export function packTarball(workDir: string, name: string, version: string, files: PackageFiles): Uint8Array {
  const staging = join(workDir, `stage-${name.replace("/", "-")}-${version}`);
  writeFiles(join(staging, "package"), files);
  const tarball = join(workDir, `${name.replace("/", "-")}-${version}.tgz`);
  run(["tar", "czf", tarball, "-C", staging, "package"], workDir);
  return new Uint8Array(readFileSync(tarball));
}

export interface FakeRegistry {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  /**
   * `dependencies` go into the version's metadata, as the registry states them; so do the
   * fields of `metadata` (`scripts`, `hasInstallScript`: npm decides from them whether to run a
   * dependency's install scripts).
   */
  publish(name: string, version: string, tarball: Uint8Array, dependencies?: Record<string, string>, metadata?: Record<string, unknown>): void;
  stop(): void;
}

export function startFakeRegistry(): FakeRegistry {
  const packages = new Map<string, Map<string, Uint8Array>>();
  const dependenciesOf = new Map<string, Record<string, string>>();
  const metadataOf = new Map<string, Record<string, unknown>>();
  const requests: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request): Response {
      const path = decodeURIComponent(new URL(request.url).pathname);
      requests.push(path);
      const tarballMatch = /^\/(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(path);
      if (tarballMatch) {
        const bytes = packages.get(tarballMatch[1]!)?.get(tarballMatch[2]!);
        return bytes ? new Response(bytes, { headers: { "content-type": "application/octet-stream" } }) : notFound();
      }
      const name = path.slice(1);
      const versions = packages.get(name);
      if (!versions) return notFound();
      const base: string = `http://127.0.0.1:${server.port}`;
      const entries: Record<string, unknown> = Object.fromEntries(
        [...versions].map(([version, bytes]): [string, unknown] => [
          version,
          {
            name,
            version,
            ...(dependenciesOf.has(`${name}@${version}`) ? { dependencies: dependenciesOf.get(`${name}@${version}`) } : {}),
            ...metadataOf.get(`${name}@${version}`),
            dist: {
              tarball: `${base}/${name}/-/${name.split("/").pop()}-${version}.tgz`,
              integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
              shasum: createHash("sha1").update(bytes).digest("hex"),
            },
          },
        ]),
      );
      const latest = [...versions.keys()].pop()!;
      return Response.json({ name, "dist-tags": { latest }, versions: entries });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/`,
    requests,
    publish(name, version, tarball, dependencies, metadata) {
      if (!packages.has(name)) packages.set(name, new Map());
      packages.get(name)!.set(version, tarball);
      if (dependencies) dependenciesOf.set(`${name}@${version}`, dependencies);
      if (metadata) metadataOf.set(`${name}@${version}`, metadata);
    },
    stop: () => server.stop(true),
  };
}

function notFound(): Response {
  return Response.json({ error: "Not found" }, { status: 404 });
}

/**
 * A git repository at `<reposDir>/<owner>/<repo>` with the files committed and tagged,
 * and a git config that makes `https://<host>/` mean `file://<reposDir>/`.
 */
export function makeGitRepository(reposDir: string, ownerRepo: string, files: PackageFiles, tag: string): string {
  const repo = writeFiles(join(reposDir, ownerRepo), files);
  run(["git", "init", "--quiet", "-b", "main"], repo);
  run(["git", "add", "-A"], repo);
  run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "--quiet", "-m", "first"], repo);
  run(["git", "tag", tag], repo);
  return repo;
}

export function writeGitConfig(file: string, host: string, reposDir: string): void {
  writeFileSync(file, `[url "file://${reposDir}/"]\n\tinsteadOf = https://${host}/\n[protocol "file"]\n\tallow = always\n`);
}

export function copyFolder(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}
