/**
 * Three stdio MCP servers of the kind a session really has — files, an issue tracker,
 * a database — 40 tools between them, each with a description and a small input
 * schema, for the `mcptokens` workload (what the tools cost in one request under each
 * exposure). One hand-written script, newline-delimited JSON-RPC, serves the set
 * named by BENCH_MCP_SET; written by hand so both agents meet the same bytes and no
 * SDK start-up. Tools are built from a table: verb × subject, parameters by kind.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

type Param = [name: string, type: "string" | "integer" | "boolean" | "string[]", description: string, required?: boolean];

interface ServerSet {
  description: string;
  tools: { name: string; description: string; params: Param[] }[];
}

const id = (what: string): Param => [`${what}_id`, "string", `The ${what}'s id`, true];
const LIMIT: Param = ["limit", "integer", "How many results to return at most (1-100, default 20)"];
const CURSOR: Param = ["cursor", "string", "The cursor a previous page returned, to continue from"];

/** The three servers: 14 + 13 + 13 tools. */
export const SERVER_SETS: Record<string, ServerSet> = {
  files: {
    description: "The project's shared drive: documents, folders and their sharing",
    tools: [
      { name: "list_folder", description: "Lists the documents and folders inside a folder, newest first.", params: [id("folder"), LIMIT, CURSOR] },
      { name: "get_document", description: "Returns a document's text and its metadata (owner, size, last change).", params: [id("document"), ["format", "string", "markdown or plain (default markdown)"]] },
      { name: "create_document", description: "Creates a document in a folder from markdown text.", params: [id("folder"), ["title", "string", "The document's title", true], ["content", "string", "The text, as markdown", true]] },
      { name: "update_document", description: "Replaces a document's text; the previous version stays in its history.", params: [id("document"), ["content", "string", "The new text, as markdown", true]] },
      { name: "append_to_document", description: "Adds text at the end of a document.", params: [id("document"), ["content", "string", "The text to add", true]] },
      { name: "rename_item", description: "Renames a document or a folder.", params: [["item_id", "string", "The document's or folder's id", true], ["name", "string", "The new name", true]] },
      { name: "move_item", description: "Moves a document or a folder into another folder.", params: [["item_id", "string", "The document's or folder's id", true], ["target_folder_id", "string", "Where to move it", true]] },
      { name: "delete_item", description: "Moves a document or folder to the trash; it can be restored for 30 days.", params: [["item_id", "string", "The document's or folder's id", true]] },
      { name: "search_documents", description: "Full-text search over every document the user can read.", params: [["query", "string", "Words to find", true], ["folder_id", "string", "Search only inside this folder"], LIMIT] },
      { name: "list_versions", description: "Lists the saved versions of a document with their authors and dates.", params: [id("document"), LIMIT] },
      { name: "restore_version", description: "Makes an earlier version the document's current text.", params: [id("document"), ["version", "integer", "The version number to restore", true]] },
      { name: "share_item", description: "Gives a person or a group access to a document or folder.", params: [["item_id", "string", "The document's or folder's id", true], ["email", "string", "Who gets access", true], ["role", "string", "reader, commenter or writer", true]] },
      { name: "list_permissions", description: "Lists who has access to a document or folder, and with which role.", params: [["item_id", "string", "The document's or folder's id", true]] },
      { name: "add_comment", description: "Adds a comment to a document, optionally on a quoted passage.", params: [id("document"), ["text", "string", "The comment", true], ["quote", "string", "The passage the comment is about"]] },
    ],
  },
  tracker: {
    description: "The team's issue tracker: issues, comments, labels, milestones and sprints",
    tools: [
      { name: "search_issues", description: "Finds issues by text, state, label, assignee or milestone.", params: [["query", "string", "Words to find in titles and bodies"], ["state", "string", "open, closed or all (default open)"], ["labels", "string[]", "Issues must have all of these labels"], ["assignee", "string", "A user name"], LIMIT, CURSOR] },
      { name: "get_issue", description: "Returns an issue with its body, labels, assignees, milestone and linked pull requests.", params: [id("issue")] },
      { name: "create_issue", description: "Opens an issue.", params: [["title", "string", "A one-line summary", true], ["body", "string", "The description, as markdown"], ["labels", "string[]", "Labels to set"], ["assignees", "string[]", "User names to assign"]] },
      { name: "update_issue", description: "Changes an issue's title, body, state or milestone.", params: [id("issue"), ["title", "string", "A new title"], ["body", "string", "A new description"], ["state", "string", "open or closed"], ["milestone_id", "string", "The milestone to move it to"]] },
      { name: "list_comments", description: "Lists an issue's comments, oldest first.", params: [id("issue"), LIMIT, CURSOR] },
      { name: "add_comment", description: "Comments on an issue.", params: [id("issue"), ["body", "string", "The comment, as markdown", true]] },
      { name: "set_labels", description: "Replaces an issue's labels.", params: [id("issue"), ["labels", "string[]", "The labels it should have", true]] },
      { name: "assign_issue", description: "Sets who works on an issue.", params: [id("issue"), ["assignees", "string[]", "User names", true]] },
      { name: "link_issues", description: "Records that one issue blocks, duplicates or relates to another.", params: [id("issue"), ["other_issue_id", "string", "The other issue", true], ["relation", "string", "blocks, duplicates or relates", true]] },
      { name: "list_milestones", description: "Lists milestones with their due dates and progress.", params: [["state", "string", "open, closed or all (default open)"], LIMIT] },
      { name: "get_sprint", description: "Returns the current or a named sprint with its issues and their states.", params: [["sprint_id", "string", "A sprint; the current one when absent"]] },
      { name: "log_time", description: "Records time spent on an issue.", params: [id("issue"), ["minutes", "integer", "Time spent, in minutes", true], ["note", "string", "What was done"]] },
      { name: "list_users", description: "Lists the tracker's users, to find the names assignees take.", params: [["query", "string", "Part of a name or email"], LIMIT] },
    ],
  },
  db: {
    description: "Read and change the application's PostgreSQL database (staging)",
    tools: [
      { name: "list_schemas", description: "Lists the database's schemas.", params: [] },
      { name: "list_tables", description: "Lists the tables of a schema with their row estimates.", params: [["schema", "string", "The schema (default public)"]] },
      { name: "describe_table", description: "Returns a table's columns, types, defaults, indexes and foreign keys.", params: [["table", "string", "schema.table or table", true]] },
      { name: "query", description: "Runs a read-only SQL query and returns at most `limit` rows as JSON.", params: [["sql", "string", "A SELECT statement", true], ["params", "string[]", "Values for $1, $2 …"], LIMIT] },
      { name: "explain", description: "Returns the query plan of a SQL statement, with costs (EXPLAIN, not ANALYZE).", params: [["sql", "string", "The statement", true]] },
      { name: "execute", description: "Runs a statement that changes data (INSERT, UPDATE, DELETE) in a transaction, and returns the rows affected.", params: [["sql", "string", "The statement", true], ["params", "string[]", "Values for $1, $2 …"], ["dry_run", "boolean", "Roll back at the end (default true)"]] },
      { name: "list_migrations", description: "Lists applied and pending schema migrations.", params: [["pending_only", "boolean", "Only the ones not applied"]] },
      { name: "run_migration", description: "Applies one pending migration.", params: [["name", "string", "The migration's file name", true]] },
      { name: "table_stats", description: "Returns a table's size on disk, dead rows and last vacuum and analyze times.", params: [["table", "string", "schema.table or table", true]] },
      { name: "slow_queries", description: "Lists the slowest statements of the last day from pg_stat_statements.", params: [LIMIT] },
      { name: "list_locks", description: "Lists the locks held or awaited now, with the sessions that hold them.", params: [] },
      { name: "sample_rows", description: "Returns a few random rows of a table, to see what its data looks like.", params: [["table", "string", "schema.table or table", true], LIMIT] },
      { name: "export_csv", description: "Writes a query's result to a CSV file on the server and returns its path.", params: [["sql", "string", "A SELECT statement", true], ["file_name", "string", "The file's name", true]] },
    ],
  },
};

function inputSchema(params: Param[]) {
  const properties = Object.fromEntries(
    params.map(([name, type, description]) => [name, type === "string[]" ? { type: "array", items: { type: "string" }, description } : { type, description }]),
  );
  const required = params.filter((param) => param[3]).map(([name]) => name);
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

function source(): string {
  const sets = Object.fromEntries(
    Object.entries(SERVER_SETS).map(([name, set]) => [name, set.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: inputSchema(tool.params) }))]),
  );
  return `const SETS = ${JSON.stringify(sets)};
const tools = SETS[process.env.BENCH_MCP_SET] ?? [];
const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
const fail = (id, message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message } }) + "\\n");
const answers = {
  initialize: (params) => ({ protocolVersion: params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: process.env.BENCH_MCP_SET, version: "1.0.0" } }),
  ping: () => ({}),
  "tools/list": () => ({ tools }),
  "tools/call": (params) => ({ content: [{ type: "text", text: params.name + ": ok" }] }),
};
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\\n")) !== -1) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    if (message.id === undefined || !message.method) continue;
    const answer = answers[message.method];
    if (answer) reply(message.id, answer(message.params));
    else fail(message.id, "unknown method " + message.method);
  }
});
process.stdin.on("end", () => process.exit(0));
`;
}

/** Writes the server into `dir` and returns its path. */
export function writeCatalogMcpServer(dir: string): string {
  const file = join(dir, "bench-mcp-catalog-server.js");
  writeFileSync(file, source());
  return file;
}

/** The mcp.json entries of the three servers, each with `exposure` when given; run by `runtime` (a JS runtime). */
export function catalogServers(file: string, runtime: string, exposure?: string): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(SERVER_SETS).map(([name, set]) => [
      name,
      { command: runtime, args: [file], env: { BENCH_MCP_SET: name }, description: set.description, ...(exposure ? { exposure } : {}) },
    ]),
  );
}

export const CATALOG_TOOL_COUNT = Object.values(SERVER_SETS).reduce((sum, set) => sum + set.tools.length, 0);
