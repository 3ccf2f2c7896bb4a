/**
 * The one owner of auth.json in a process: reads it (again only when the file changed —
 * another xcsh may have refreshed a token), writes it under the cross-process lock, and
 * refreshes OAuth tokens so that concurrent refreshes — in this process or in others —
 * happen once. Callers ask it for a credential each time and keep no token themselves.
 */
import { canonicalProvider, providerAliases } from "../ai/provider-aliases.ts";
import { statSync } from "node:fs";
import { readAuthFile, renderAuthFile, writeAuthFile, type AuthFileContent, type Credential, type OAuthCredential } from "./auth-file.ts";
import { withAuthLock } from "./auth-lock.ts";

interface Snapshot {
  /** mtime, size and inode: a rename-over changes the inode even within one mtime tick. */
  stamp: string;
  content: AuthFileContent;
}

export class AuthStore {
  private snapshot: Snapshot | undefined;
  /** Refreshes under way in this process, by provider: a second caller joins the first. */
  private readonly refreshing = new Map<string, Promise<OAuthCredential | undefined>>();

  constructor(readonly path: string) {}

  /** The whole file as it is now (ConfigError when it is unusable as a whole). */
  read(): AuthFileContent {
    const stat = statSync(this.path, { throwIfNoEntry: false });
    const stamp = stat ? `${stat.mtimeMs}:${stat.size}:${stat.ino}` : "missing";
    if (this.snapshot?.stamp !== stamp) this.snapshot = { stamp, content: readAuthFile(this.path) };
    return this.snapshot.content;
  }

  /**
   * The key the provider's entry is under: its own id, else one of its other names
   * (pi 1.x stores Azure under `azure`; provider-aliases.ts).
   */
  private keyOf(provider: string, content: AuthFileContent): string {
    const id = canonicalProvider(provider);
    for (const key of [provider, id, ...providerAliases(id)]) {
      if (content.credentials.has(key) || content.invalid.has(key)) return key;
    }
    return provider;
  }

  /** The provider's credential; throws the entry's error when it is malformed. */
  get(provider: string): Credential | undefined {
    const content = this.read();
    const key = this.keyOf(provider, content);
    const invalid = content.invalid.get(key);
    if (invalid) throw invalid;
    return content.credentials.get(key);
  }

  /** Whether a credential is stored for the provider; false (never a throw) when the file cannot be read. */
  has(provider: string): boolean {
    try {
      const content = this.read();
      return content.credentials.has(this.keyOf(provider, content));
    } catch {
      return false;
    }
  }

  /** Stores (or replaces) the provider's credential; the other entries are kept as they are on disk. */
  async set(provider: string, credential: Credential): Promise<void> {
    await this.update((entries) => {
      entries.set(provider, credential);
      return true;
    });
  }

  /** Removes the provider's entry (even a malformed one); false when there was none. */
  async remove(provider: string): Promise<boolean> {
    let removed = false;
    await this.update((entries) => {
      removed = entries.delete(provider);
      return removed;
    });
    return removed;
  }

  /**
   * A credential fresh enough for a request. When `isFresh` says the stored one is not,
   * this takes the lock, reads the file again (another process may have refreshed
   * meanwhile) and only then calls `refresh`, saving its result before letting go.
   * Undefined when the credential is gone (signed out meanwhile).
   */
  async freshOAuth(
    provider: string,
    isFresh: (credential: OAuthCredential) => boolean,
    refresh: (credential: OAuthCredential) => Promise<OAuthCredential>,
  ): Promise<OAuthCredential | undefined> {
    const stored = this.get(provider);
    if (stored?.type !== "oauth") return undefined;
    if (isFresh(stored)) return stored;
    let pending = this.refreshing.get(provider);
    if (!pending) {
      pending = this.refreshLocked(provider, isFresh, refresh).finally(() => this.refreshing.delete(provider));
      this.refreshing.set(provider, pending);
    }
    return pending;
  }

  private async refreshLocked(
    provider: string,
    isFresh: (credential: OAuthCredential) => boolean,
    refresh: (credential: OAuthCredential) => Promise<OAuthCredential>,
  ): Promise<OAuthCredential | undefined> {
    let result: OAuthCredential | undefined;
    await this.update(async (entries) => {
      const current = this.get(provider); // the file as it is under the lock
      if (current?.type !== "oauth") return false;
      result = current;
      if (isFresh(current)) return false;
      result = await refresh(current);
      entries.set(provider, result);
      return true;
    });
    return result;
  }

  /**
   * Read-modify-write under the lock, on the entries as they are on disk now (entries
   * that failed their check included: a rewrite must not drop what it cannot read).
   * `change` returns false when it changed nothing, and nothing is written then.
   */
  private async update(change: (entries: Map<string, unknown>) => boolean | Promise<boolean>): Promise<void> {
    await withAuthLock(this.path, async () => {
      this.snapshot = undefined;
      const entries = new Map(this.read().entries);
      if (!(await change(entries))) return;
      writeAuthFile(this.path, renderAuthFile(entries));
      this.snapshot = undefined;
    });
  }
}
