/** Reads the session JSON back out of an exported page, as the page's own script does. */
export function pageData(html: string) {
  const match = /<script type="application\/json" id="session-data">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error("the page has no session data");
  return JSON.parse(match[1]);
}
