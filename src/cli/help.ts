export const HELP_TEXT = `xcsh — a coding agent in one executable

Usage:
  xcsh [options] [@files...] [messages...]
  xcsh [prompt]                    On a terminal: an interactive session
                                   (docs/interactive.md; /hotkeys lists the keys)
  xcsh -p "prompt"                 Run a prompt and print the answer
  xcsh -p "one" "two"              Each message is a prompt of its own, in turn;
                                   the answer to the last one is printed
  xcsh -p @notes.md @shot.png "…"  @files go with the first prompt: a text file's
                                   contents, an image as an image
  git diff | xcsh -p "Review this" Piped input comes before the first prompt
  xcsh -p -- "-prompt"             -- ends the options (for a prompt that starts with -)
  xcsh --list-models [search]      List the models you can use
  xcsh models update               Refresh the model catalog from models.dev
                                   (docs/providers.md); never done on its own
  xcsh auth login|logout|status [provider]
                                   Sign in (github-copilot, openai-codex) or store
                                   an API key in auth.json (docs/providers.md)
  xcsh --export <session> [out]    Write a session (file or id) as HTML, or as a
                                   linear JSONL file when out ends in .jsonl
  xcsh mcp list|get|add|remove     Show and edit MCP servers (docs/mcp.md);
                                   mcp login|logout <name>: OAuth sign-in
  xcsh install <source> [-l]       Install a package (npm:<name>, git:<host>/<owner>/<repo>,
                                   a path); -l for this project (docs/packages.md)
  xcsh remove|update|list          Remove a package, update packages, list them

Options:
  -p, --print [prompt]             Non-interactive: answer the prompt and exit
  --mode <text|json|rpc|acp>       text prints the final answer (default);
                                   json prints every event as a JSON line;
                                   rpc serves JSONL commands on stdin (docs/rpc.md);
                                   acp speaks the Agent Client Protocol to an
                                   editor (Zed, JetBrains, Neovim; docs/acp.md)
  --output-format <text|json>      -p: text prints the answer; json prints only the
                                   result envelope (status, usage, cost, …)
  --max-turns <n>                  -p/json: stop before a model request past n turns
  --max-cost <usd>                 -p/json: stop once the run has cost this much
  --timeout <seconds>              -p/json: stop the whole run after this long
  --idle-timeout <seconds>         -p/json: stop after this long with no event from
                                   the model or a tool
  --rpc-lean                       rpc: stream deltas without repeating the whole message
  --rpc-wire <full|lean|pi>        rpc/json: the event form; pi is pi 0.87.1's delta-only
                                   wire (docs/rpc.md)
  --provider <name>                Provider: anthropic, openai, google, or one from models.json
  --model <pattern>                Model id, provider/id, or a part of its name;
                                   a :<thinking> suffix sets the level (sonnet:high)
  --thinking <level>               off, minimal, low, medium, high, xhigh, or max
                                   (the model's highest)
  --api-key <key>                  API key for this run (overrides the environment)
  --faux-script <file>             Replies for the offline faux provider (JSON script);
                                   try: xcsh --provider faux -p "hello"
  --models <patterns>              Models to start with and cycle through (Ctrl+P,
                                   cycle_model): ids, provider/id, globs (anthropic/*),
                                   parts of names, :<thinking> suffixes; comma-separated
  --system-prompt <text|file>      Replace the system prompt (a file's contents
                                   when the value names a file)
  --append-system-prompt <text|file>
                                   Add text or a file's contents to the system
                                   prompt (repeatable)
  -t, --tools <list>               The only tools to enable, built-in or an
                                   extension's (built-in: read,bash,edit,write,
                                   grep,find,ls; default read,bash,edit,write)
                                   codemode: scripts that call the other tools
                                   (e.g. --tools codemode,read,bash)
  -xt, --exclude-tools <list>      Tools to disable, after every other choice
  -nt, --no-tools                  Run without tools (built-in and extensions')
  -nbt, --no-builtin-tools         No built-in tool active; extension tools stay
  --sandbox <mode>                 Where commands may write: off (default), read-only,
                                   workspace-write (this folder and temp); network off
                                   unless settings allow it (docs/security.md)
  -e, --extension <path>           Load an extension file or folder (repeatable)
  -ne, --no-extensions             Load only the -e extensions
  --skill <path>                   Load a skill file or folder (repeatable)
  -ns, --no-skills                 Load only the --skill skills
  --prompt-template <path>         Load a prompt template file or folder (repeatable)
  -np, --no-prompt-templates       Load only the --prompt-template templates
  -nc, --no-context-files          Leave AGENTS.md / CLAUDE.md out of the system prompt
  --mcp-config <file>              Also connect the MCP servers of this file (repeatable)
  --no-mcp                         No MCP servers from mcp.json / .mcp.json (docs/mcp.md)
  --trust-project, -a, --approve   Trust this project: load its extensions and
                                   code-running settings (--no-trust-project, -na,
                                   --no-approve: don't)
  --theme <path>                   Load a theme file or folder (repeatable; docs/themes.md)
  --use-theme <name[/name]>        The theme to draw with in this run (light/dark: by
                                   the terminal's background)
  --no-themes                      Load only the --theme themes
  --tui-mode <fullscreen|regular>  The terminal UI: fullscreen (alternate screen, the
                                   editor fixed at the bottom) or regular (inline)
  --verbose                        Show the start-up header despite quietStartup, and a
                                   provider error's raw body (credentials redacted)
  --offline                        pi's option, accepted and ignored: xcsh has no
                                   automatic network requests
  -c, --continue                   Continue the most recent session in this directory
  -r, --resume                     Pick the session to resume (with -p: from a list
                                   on the terminal; without one, nothing runs)
  --fork <path|id>                 Start a new session holding a copy of that one
  --session <path|id>              Open a session file, or the session whose id starts so
  --session-id <id>                Open this project's session with exactly this id, or
                                   start a new one with it (with --fork: the fork's id)
  --no-session                     Keep nothing on disk
  --session-dir <dir>              Store sessions here instead of ~/.xcsh/agent/sessions
  -n, --name <name>                Name the session
  --list-models [search]           List models (filtered by search text)
  -v, --version                    Print the version
  -h, --help                       Print this help

Configuration (in ~/.xcsh/agent, or $XCSH_CODING_AGENT_DIR):
  settings.json                    defaultProvider, defaultModel, defaultThinkingLevel, …
  models.json                      custom providers and models (pi's format)
  extensions/                      pi extensions loaded on every run (docs/extensions.md)

API keys: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, or --api-key.

Exit codes (-p and --mode json; docs/headless.md):
  0 success   1 model or agent error   2 usage or configuration error
  3 missing or rejected credentials    4 provider still failing after retries
  5 max turns   6 max cost   7 timeout or idle timeout
  130 interrupted (SIGINT/SIGTERM)   141 stdout closed
`;
