/**
 * The sandbox's pure decisions, where the binary cannot show them: which variables
 * count as credentials, how settings become a policy (and which values are refused),
 * the order of bubblewrap's mounts (a later mount covers an earlier one), and the macOS
 * profile — which cannot run on the Linux machines the suite runs on, so its text is
 * the only thing checked here.
 */
import { describe, expect, test } from "bun:test";
import { bubblewrapArgs } from "../../src/sandbox/bubblewrap.ts";
import { childEnvironment, hasSecretName, isProviderCredential } from "../../src/sandbox/child-environment.ts";
import { credentialVariablesIn } from "../../src/sandbox/configured-credentials.ts";
import { isHostAllowed } from "../../src/sandbox/network-hosts.ts";
import { allowedHosts, resolveCommandPolicy } from "../../src/sandbox/policy.ts";
import { seatbeltProfile } from "../../src/sandbox/seatbelt.ts";

describe("what counts as a provider credential", () => {
  test("provider keys and tokens do (every key variable of the catalog's providers among them); the user's tool credentials and provider settings that are not secret do not", () => {
    for (const name of ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "AWS_BEARER_TOKEN_BEDROCK", "COPILOT_GITHUB_TOKEN", "OPENROUTER_SECRET", "HF_TOKEN", "XIAOMI_TOKEN_PLAN_SGP_API_KEY"]) {
      expect([name, isProviderCredential(name)]).toEqual([name, true]);
    }
    for (const name of ["GITHUB_TOKEN", "GH_TOKEN", "AWS_SECRET_ACCESS_KEY", "STRIPE_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_MONKEY", "METADATA_TOKEN", "PATH"]) {
      expect([name, isProviderCredential(name)]).toEqual([name, false]);
    }
  });

  test("models.json's $VAR, ${VAR} and bare-name key and header values name credentials; commands and literals do not", () => {
    const names = credentialVariablesIn(
      {
        providers: {
          a: { apiKey: "$CORP_KEY", headers: { "X-Team": "Bearer ${TEAM_TOKEN}", Price: "$$5" } },
          b: { apiKey: "LEGACY_KEY", models: [{ id: "m", headers: { "X-Model": "${MODEL_SECRET}" } }] },
          c: { apiKey: "!pass show llm" },
          d: { apiKey: "sk-literal" },
          e: "not an object",
        },
      },
      { LEGACY_KEY: "set" },
    );
    expect(names.sort()).toEqual(["CORP_KEY", "LEGACY_KEY", "MODEL_SECRET", "TEAM_TOKEN"]);
    expect(credentialVariablesIn("broken")).toEqual([]);
  });

  test("passthrough wins over exclude and over the credential rule; set comes last", () => {
    const env = childEnvironment(
      { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "r", AI_AGENT: "xcsh" },
      { inherit: "all", passthrough: ["OPENAI_*", "AWS_REGION"], exclude: ["AWS_*"], set: { EXTRA: "1" } },
    );
    expect(env).toEqual({ OPENAI_API_KEY: "o", AWS_REGION: "r", AI_AGENT: "xcsh", EXTRA: "1" });
  });
});

describe("what a sandbox also hides: a secret's name", () => {
  test("a whole word KEY, SECRET, TOKEN or PASSWORD (or a plural, or a word ending in PASSWORD), case ignored, at any separator", () => {
    const secret = ["DATABASE_PASSWORD", "STRIPE_SECRET_KEY", "NPM_TOKEN", "GITHUB_TOKEN", "AWS_ACCESS_KEY_ID", "PGPASSWORD", "api_key", "Deploy-Token", "SSH_KEYS", "APP_SECRETS", "KEY", "my.secret"];
    const harmless = ["KEYBOARD_LAYOUT", "MONKEY", "TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK", "PATH", "HOME", "LESSKEY", "SECRETARY", "PASSWD_FILE"];
    expect(secret.filter((name) => !hasSecretName(name))).toEqual([]);
    expect(harmless.filter(hasSecretName)).toEqual([]);
  });

  test("only when asked (a sandbox on); passthrough keeps one, and the markers and fixed values stay", () => {
    const base = { GITHUB_TOKEN: "g", DATABASE_PASSWORD: "d", MONKEY: "m", AI_AGENT: "xcsh" };
    const policy = { inherit: "all" as const, passthrough: ["GITHUB_*"], exclude: [], set: { DEPLOY_TOKEN: "fixed" } };
    expect(childEnvironment(base)).toEqual(base);
    expect(childEnvironment(base, policy, { hideSecretNames: true })).toEqual({ GITHUB_TOKEN: "g", MONKEY: "m", AI_AGENT: "xcsh", DEPLOY_TOKEN: "fixed" });
  });
});

describe("settings and --sandbox become a policy", () => {
  test("the flag wins over the settings; the project and writableRoots (relative ones from the project) are writable; network defaults to deny", () => {
    const policy = resolveCommandPolicy({ sandbox: { mode: "read-only", writableRoots: ["../cache", "/abs"] } }, "workspace-write", "/home/u/project");
    expect(policy.sandbox).toEqual({ mode: "workspace-write", network: "deny", writableRoots: ["/home/u/project", "/home/u/cache", "/abs"] });
    expect(resolveCommandPolicy({ sandbox: { writableRoots: ["/abs"] } }, "read-only", "/p").sandbox.writableRoots).toEqual([]);
    expect(resolveCommandPolicy({}, undefined, "/p").sandbox.mode).toBe("off");
    expect(resolveCommandPolicy({ sandbox: { mode: "workspace-write" } }, "off", "/p").sandbox.mode).toBe("off");
  });

  test("values that cannot be applied are errors naming the setting", () => {
    expect(() => resolveCommandPolicy({ sandbox: { mode: "read-only", network: ["https://a.example/x"] } }, undefined, "/p")).toThrow(/sandbox\.network: "https:\/\/a\.example\/x" is not a host/);
    expect(() => resolveCommandPolicy({ sandbox: { mode: "read-only", network: ["a.example:99999"] } }, undefined, "/p")).toThrow(/sandbox\.network: "a\.example:99999" has a port/);
    expect(() => resolveCommandPolicy({ sandbox: { mode: "read-only", network: ["*"] } }, undefined, "/p")).toThrow(/would allow every host.*"allow"/);
    expect(() => resolveCommandPolicy({ sandbox: { mode: "read-only", network: ["a.*.example"] } }, undefined, "/p")).toThrow(/sandbox\.network: "a\.\*\.example" has a \*/);
    expect(() => resolveCommandPolicy({ sandbox: { mode: "read-only", network: [42] } }, undefined, "/p")).toThrow(/sandbox\.network: 42 is not a host name/);
    expect(() => resolveCommandPolicy({ sandbox: { mode: "read-only", network: "some" } }, undefined, "/p")).toThrow(/sandbox\.network must be/);
    expect(() => resolveCommandPolicy({ sandbox: { mode: "strict" } }, undefined, "/p")).toThrow(/sandbox mode "strict"/);
    expect(() => resolveCommandPolicy({ shellEnv: { inherit: "most" } }, undefined, "/p")).toThrow(/shellEnv\.inherit/);
  });
});

describe("a list of hosts", () => {
  const hostsOf = (list: string[]) => {
    const network = resolveCommandPolicy({ sandbox: { mode: "workspace-write", network: list } }, undefined, "/p").sandbox.network;
    return allowedHosts(network)!;
  };

  test("names match exactly, *. matches every name below (not the name itself), a port limits the entry to it", () => {
    const hosts = hostsOf(["Example.com.", "*.npmjs.org", "127.0.0.1:8080", "[::1]:3000", "localhost"]);
    const allowed = (host: string, port: number) => isHostAllowed(hosts, host, port);
    expect(allowed("example.com", 443)).toBe(true);
    expect(allowed("EXAMPLE.COM.", 80)).toBe(true);
    expect(allowed("www.example.com", 443)).toBe(false);
    expect(allowed("registry.npmjs.org", 443)).toBe(true);
    expect(allowed("a.b.npmjs.org", 443)).toBe(true);
    expect(allowed("npmjs.org", 443)).toBe(false);
    expect(allowed("evilnpmjs.org", 443)).toBe(false);
    expect(allowed("127.0.0.1", 8080)).toBe(true);
    expect(allowed("127.0.0.1", 8081)).toBe(false);
    expect(allowed("[::1]", 3000)).toBe(true);
    expect(allowed("::1", 3001)).toBe(false);
    expect(allowed("localhost", 1234)).toBe(true);
    // Compared as asked, before resolving: another spelling of an address is another host.
    expect(allowed("127.1", 8080)).toBe(false);
  });

  test("an empty list is a network with nothing allowed, not an error", () => {
    expect(hostsOf([])).toEqual([]);
  });
});

describe("the launchers", () => {
  const layout = { cwd: "/w/p", writableRoots: ["/w/p", "/tmp"], protectedPaths: ["/nonexistent/.git/hooks"], hiddenPaths: ["/nonexistent/.xcsh/agent"], hiddenSockets: { folders: [], files: [] }, ownFolders: [] };

  test("bubblewrap: read-only root first, writable roots after it, no network under deny, the program last", () => {
    const args = bubblewrapArgs({ mode: "workspace-write", network: "deny", writableRoots: [] }, layout, ["/bin/sh", "-c", "echo hi"]);
    expect(args.slice(0, 9)).toEqual(["--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    expect(args).toContain("--unshare-net");
    expect(args.indexOf("--bind-try")).toBeGreaterThan(args.indexOf("--ro-bind"));
    expect(args.slice(-6)).toEqual(["--chdir", "/w/p", "--", "/bin/sh", "-c", "echo hi"]);
    const readOnly = bubblewrapArgs({ mode: "read-only", network: "allow", writableRoots: [] }, { ...layout, writableRoots: [] }, ["true"]);
    expect(readOnly).not.toContain("--bind-try");
    expect(readOnly).not.toContain("--unshare-net");
  });

  test("bubblewrap with a list of hosts: no network of its own, the proxy's folder read-only after the writable roots", () => {
    const policy = { mode: "workspace-write" as const, network: { allowHosts: [] }, writableRoots: [] };
    const args = bubblewrapArgs(policy, layout, ["relay"], "/tmp/xcsh-net-1");
    expect(args).toContain("--unshare-net");
    const folder = args.lastIndexOf("/tmp/xcsh-net-1");
    expect(args.slice(folder - 2, folder + 1)).toEqual(["--ro-bind", "/tmp/xcsh-net-1", "/tmp/xcsh-net-1"]);
    expect(folder).toBeGreaterThan(args.lastIndexOf("--bind-try"));
  });

  test("sandbox-exec profile: writes denied but for the roots, exceptions after their rules, IP networking denied", () => {
    const profile = seatbeltProfile({ mode: "workspace-write", network: "deny", writableRoots: [] }, { ...layout, writableRoots: ['/w/p "quoted"'] });
    const lines = profile.split("\n");
    expect(lines.slice(0, 3)).toEqual(["(version 1)", "(allow default)", "(deny file-write*)"]);
    expect(lines[3]).toStartWith('(allow file-write* (subpath "/w/p \\"quoted\\"")');
    expect(profile).toContain('(deny file-write* (subpath "/nonexistent/.git/hooks"))');
    expect(profile).toContain('(deny file-read* file-write* (subpath "/nonexistent/.xcsh/agent"))');
    expect(profile).toContain('(deny network-outbound (remote ip "*:*"))');
    expect(seatbeltProfile({ mode: "read-only", network: "allow", writableRoots: [] }, { ...layout, writableRoots: [] })).not.toContain("network");
  });

  test("sandbox-exec profile: protected paths are denied whether they exist or not, but a missing .git (which Linux cannot hold either)", () => {
    const protectedPaths = ["/nonexistent/p/.git", "/nonexistent/p/.xcsh", "/nonexistent/p/.mcp.json"];
    const profile = seatbeltProfile({ mode: "workspace-write", network: "deny", writableRoots: [] }, { ...layout, protectedPaths });
    expect(profile).toContain('(deny file-write* (subpath "/nonexistent/p/.xcsh"))');
    expect(profile).toContain('(deny file-write* (subpath "/nonexistent/p/.mcp.json"))');
    expect(profile).not.toContain("/nonexistent/p/.git");
    const existing = seatbeltProfile({ mode: "workspace-write", network: "deny", writableRoots: [] }, { ...layout, protectedPaths: [process.cwd() + "/.git"] });
    expect(existing).toContain(`(deny file-write* (subpath "${process.cwd()}/.git"))`);
  });
});
