/** The built-in coding tools, by name. */
import { createBashTool, type BashToolOptions } from "./bash.ts";
import { createEditTool, type EditToolOptions } from "./edit.ts";
import { createFindTool, type FindToolOptions } from "./find.ts";
import { createGrepTool, type GrepToolOptions } from "./grep.ts";
import { createLsTool, type LsToolOptions } from "./ls.ts";
import { createReadTool, type ReadToolOptions } from "./read.ts";
import type { CodingTool } from "./types.ts";
import { createWriteTool, type WriteToolOptions } from "./write.ts";

export type ToolName = "read" | "bash" | "edit" | "write" | "grep" | "find" | "ls";

export const allToolNames: ReadonlySet<ToolName> = new Set<ToolName>(["read", "bash", "edit", "write", "grep", "find", "ls"]);
/** What a session gets unless told otherwise: enough to read, run and change code. */
export const defaultToolNames: readonly ToolName[] = ["read", "bash", "edit", "write"];
export const readOnlyToolNames: readonly ToolName[] = ["read", "grep", "find", "ls"];

export interface ToolsOptions {
  read?: ReadToolOptions;
  bash?: BashToolOptions;
  edit?: EditToolOptions;
  write?: WriteToolOptions;
  grep?: GrepToolOptions;
  find?: FindToolOptions;
  ls?: LsToolOptions;
}

export function createTool(name: ToolName, cwd: string, options: ToolsOptions = {}): CodingTool<any> {
  switch (name) {
    case "read":
      return createReadTool(cwd, options.read);
    case "bash":
      return createBashTool(cwd, options.bash);
    case "edit":
      return createEditTool(cwd, options.edit);
    case "write":
      return createWriteTool(cwd, options.write);
    case "grep":
      return createGrepTool(cwd, options.grep);
    case "find":
      return createFindTool(cwd, options.find);
    case "ls":
      return createLsTool(cwd, options.ls);
  }
}

export function createTools(names: readonly ToolName[], cwd: string, options?: ToolsOptions): CodingTool<any>[] {
  return names.map((name) => createTool(name, cwd, options));
}

export const createCodingTools = (cwd: string, options?: ToolsOptions) => createTools(defaultToolNames, cwd, options);
export const createReadOnlyTools = (cwd: string, options?: ToolsOptions) => createTools(readOnlyToolNames, cwd, options);
export function createAllTools(cwd: string, options?: ToolsOptions): Record<ToolName, CodingTool<any>> {
  return Object.fromEntries([...allToolNames].map((name) => [name, createTool(name, cwd, options)])) as Record<ToolName, CodingTool<any>>;
}

export { withFileMutationQueue } from "./file-mutation-queue.ts";
export * from "./truncate.ts";
export type { CodingTool } from "./types.ts";
