/**
 * /login [provider] and /logout [provider]: the interactive side of auth.json.
 *
 * /login without a provider offers a list — the accounts xcsh signs in to (GitHub
 * Copilot, OpenAI Codex) first, then every provider that takes an API key. A sign-in
 * runs the same flow as `xcsh auth login` (login-signin.ts); an API key is typed or
 * pasted into a secret field and never drawn. Either way the credential lands in
 * auth.json (0600) and the model list is built again, so /model offers the new models
 * at once. /logout lists what auth.json holds and removes one entry.
 *
 * Anthropic takes an API key only: its terms keep Claude subscriptions out of
 * third-party tools, so no Claude sign-in is offered.
 */
import type { AuthStore } from "../../../auth/auth-store.ts";
import { DEFAULT_MODEL_IDS } from "../../../ai/models-catalog.ts";
import { authStoreAt } from "../../../auth/credentials.ts";
import { ANTHROPIC_KEY_ONLY, loginTargets, type LoginTarget } from "../../../config/login-targets.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { selectDialog } from "../dialogs.ts";
import { shortenHome } from "../footer.ts";
import { LoginPanel, withLoginPanel } from "./login-panel.ts";
import { runSignIn } from "./login-signin.ts";

const storeOf = (app: App): AuthStore => authStoreAt(app.session.registry.authJsonPath);

/** The provider's models now usable (after the registry was rebuilt). */
function modelCount(app: App, provider: string): number {
  return app.session.models.availableModels().filter((model) => model.provider === provider).length;
}

/** "12 Anthropic models to choose from…": the provider named with its models, so the line reads on its own. */
function modelsLine(count: number, providerName: string): string {
  return `${count} ${providerName} model${count === 1 ? "" : "s"} to choose from with /model`;
}

/** After auth.json changed: the model list, the footer and the header follow it. */
function credentialsChanged(app: App): void {
  app.session.registry.refreshCredentials();
  app.footer.refresh();
  app.refreshHeader();
}

/**
 * A session opened without any key (a first start) sits on a model it cannot use: once a
 * credential lands, move to the new provider's everyday model, so the next prompt works.
 */
async function moveOffKeylessModel(app: App, provider: string): Promise<void> {
  if (app.session.registry.hasAuth(app.session.model)) return;
  const usable = app.session.models.availableModels().filter((model) => model.provider === provider);
  const chosen = usable.find((model) => model.id === DEFAULT_MODEL_IDS[provider]) ?? usable[0];
  if (!chosen) return;
  await app.session.models.setModel(chosen);
  app.footer.refresh();
  app.refreshHeader();
  app.say(`Model: ${chosen.provider}/${chosen.id}`, "the model in use had no API key", "accent");
}

async function chooseTarget(app: App, targets: LoginTarget[]): Promise<LoginTarget | undefined> {
  const store = storeOf(app);
  const items = targets.map((target) => ({
    value: `${target.kind}:${target.id}`,
    label: target.name === target.id ? target.id : `${target.name} (${target.id})`,
    description: [target.kind === "sign-in" ? "sign in with your account" : "API key", store.has(target.id) ? "✓ stored" : ""].filter(Boolean).join(" · "),
  }));
  const picked = await selectDialog(app.surface, "Sign in or store an API key", items, { searchable: true });
  return picked ? targets.find((target) => `${target.kind}:${target.id}` === picked.value) : undefined;
}

async function login(app: App, args: string): Promise<void> {
  const [wanted = "", ...extra] = args.trim().split(/\s+/);
  // Never echoed: the extra words may well be the key itself, typed where it does not belong.
  if (extra.length > 0) return app.say("✗ /login takes only a provider's name", "the API key is asked for afterwards, in a field that does not show it", "error");
  const targets = loginTargets(app.session.registry.modelsJsonPath);
  let target: LoginTarget | undefined;
  if (wanted) {
    const named = targets.filter((candidate) => candidate.id === wanted);
    // OpenAI takes a ChatGPT sign-in or a key: the person picks which.
    target = named.length > 1 ? await chooseTarget(app, named) : named[0];
    if (named.length > 1 && !target) return;
    if (!target) return app.say(`✗ Unknown provider "${wanted}"`, "/login without a name lists the providers you can sign in to or store a key for", "error");
  } else {
    target = await chooseTarget(app, targets);
    if (!target) return;
  }
  if (target.kind === "sign-in") return signIn(app, target);
  return storeApiKey(app, target);
}

async function signIn(app: App, target: LoginTarget): Promise<void> {
  const store = storeOf(app);
  // The installation keeps its id across sign-ins (Sign in with ChatGPT names it).
  const previous = store.has(target.id) ? store.get(target.id) : undefined;
  const deviceId = previous?.type === "oauth" && typeof previous.deviceId === "string" ? previous.deviceId : undefined;
  const credential = await runSignIn(app, target, deviceId);
  if (!credential) return;
  await store.set(target.id, credential);
  credentialsChanged(app);
  const count = modelCount(app, target.id);
  app.say(`✓ Signed in to ${target.name}`, `${modelsLine(count, target.name)} · saved to ${shortenHome(store.path)}`, "success");
  await moveOffKeylessModel(app, target.id);
}

async function storeApiKey(app: App, target: LoginTarget): Promise<void> {
  const store = storeOf(app);
  const cancel = new AbortController();
  const panel = new LoginPanel(() => app.surface.theme(), `API key for ${target.name}`, () => cancel.abort(), () => app.surface.tui.requestRender());
  const lines = [`Stored in ${shortenHome(store.path)} (readable by you only).`];
  if (target.envKeys.length > 0) lines.push(`Or set ${target.envKeys.join(" or ")} instead of storing it.`);
  if (target.id === "anthropic") lines.unshift(ANTHROPIC_KEY_ONLY);
  panel.setLines(lines);
  const key = (await withLoginPanel(app.surface.replaceEditor, panel, () => panel.ask({ prompt: "key: ", secret: true, placeholder: "type or paste the key" })))?.trim();
  if (cancel.signal.aborted) return app.say("Login cancelled", "", "muted");
  if (!key) return app.say("No key was entered; nothing was stored", "", "warning");
  await store.set(target.id, { type: "api_key", key });
  credentialsChanged(app);
  const count = modelCount(app, target.id);
  const models = count > 0 ? modelsLine(count, target.name) : "no built-in models: add them in models.json";
  app.say(`✓ Stored the API key for ${target.name}`, `${models} · saved to ${shortenHome(store.path)}`, "success");
  await moveOffKeylessModel(app, target.id);
}

async function logout(app: App, args: string): Promise<void> {
  const store = storeOf(app);
  let stored: string[];
  try {
    stored = [...store.read().entries.keys()];
  } catch (error) {
    return app.say("✗ auth.json cannot be read", (error as Error).message, "error");
  }
  let provider = args.trim().split(/\s+/)[0] ?? "";
  if (!provider) {
    if (stored.length === 0) return app.say(`No credential is stored in ${shortenHome(store.path)}`, "", "muted");
    const names = new Map(loginTargets(app.session.registry.modelsJsonPath).map((target) => [target.id, target.name]));
    const picked = await selectDialog(
      app.surface,
      "Remove a stored credential",
      stored.map((id) => ({ value: id, label: names.get(id) && names.get(id) !== id ? `${names.get(id)} (${id})` : id, description: describeStored(store, id) })),
    );
    if (!picked) return;
    provider = picked.value;
  }
  // Nothing to remove is not a failure (as `xcsh auth logout` exits 0): the person asked
  // for the credential to be gone, and it is.
  if (!(await store.remove(provider))) return app.say(`No credential of ${provider} is stored: nothing to remove`, `in ${shortenHome(store.path)}`, "muted");
  credentialsChanged(app);
  const current = app.session.model;
  const stillUsable = current.provider !== provider || app.session.registry.hasAuth(current);
  const notes = ["Environment variables and models.json are unchanged; a sign-in is not revoked at the provider."];
  if (!stillUsable) notes.push(`The model in use (${current.provider}/${current.id}) has no credential now: /model picks another.`);
  app.say(`Removed the credential of ${provider}`, notes.join("\n"), stillUsable ? "accent" : "warning");
}

function describeStored(store: AuthStore, provider: string): string {
  try {
    const credential = store.get(provider);
    return credential?.type === "oauth" ? "signed in" : "API key";
  } catch {
    return "malformed entry";
  }
}

export const loginCommands: BuiltinCommand[] = [
  { name: "login", description: "Sign in (GitHub Copilot, OpenAI Codex) or store a provider's API key", argumentHint: "[provider]", run: login },
  { name: "logout", description: "Remove a credential stored in auth.json", argumentHint: "[provider]", run: logout },
];
