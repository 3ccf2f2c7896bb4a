/**
 * Parsing of tool-call arguments that arrive as JSON fragments. While a call
 * streams, clients want the arguments seen so far (a file path before the file
 * content is complete), so an unfinished document is closed off and parsed.
 */

/** Parses possibly incomplete JSON; returns {} when nothing usable is there yet. */
export function parseStreamingJson<T = Record<string, unknown>>(partialJson: string | undefined): T {
  if (!partialJson || partialJson.trim() === "") return {} as T;
  try {
    return JSON.parse(partialJson) as T;
  } catch {
    // fall through to repair
  }
  const closed = closeJson(partialJson);
  if (closed !== undefined) {
    try {
      return JSON.parse(closed) as T;
    } catch {
      // ignore
    }
  }
  return {} as T;
}

/**
 * Completes a truncated JSON document: closes an open string, drops a dangling
 * key or separator, and closes open objects and arrays. Returns undefined when
 * the text is not the prefix of an object or array.
 */
function closeJson(text: string): string | undefined {
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  // Index just after the last value boundary where the document can be cut cleanly.
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{") stack.push("}");
    else if (ch === "[") stack.push("]");
    else if (ch === "}" || ch === "]") stack.pop();
  }
  if (stack.length === 0 && !inString) return undefined;
  let out = text;
  if (inString) {
    // A dangling backslash would escape our closing quote.
    if (escaped) out = out.slice(0, -1);
    // Cut a partial unicode escape (\u12) that would not parse.
    out = out.replace(/\\u[0-9a-fA-F]{0,3}$/, "");
    out += '"';
  }
  // Candidate endings, from most to least complete, until one parses.
  const closers = stack.slice().reverse().join("");
  const attempts = [
    out,
    out.replace(/,\s*$/, ""),
    out.replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:?\s*$/, ""), // dangling key (with or without colon)
    out.replace(/:\s*[^,{}\[\]]*$/, ": null"), // partial literal (tru, 12.)
  ];
  for (const attempt of attempts) {
    const candidate = attempt.replace(/,\s*$/, "") + closers;
    try {
      JSON.parse(candidate);
      return candidate;
    } catch {
      // try the next
    }
  }
  return undefined;
}
