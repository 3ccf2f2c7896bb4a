/**
 * The page's skeleton. {{…}} marks where export-html.ts puts the policy, the
 * title, the stylesheet, the session JSON and the viewer script. The static
 * parts (header, sidebar, message list) are empty containers the viewer fills.
 */
export const PAGE_TEMPLATE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>{{TITLE}}</title>
<style>{{STYLE}}</style>
</head>
<body>
<noscript><p class="noscript">This exported session needs JavaScript to display its messages.</p></noscript>
<div id="app">
<nav id="sidebar" aria-label="Session tree">
<div class="sidebar-head"><span class="sidebar-title">Session tree</span><span id="tree-count" class="muted"></span></div>
<ol id="tree" class="tree"></ol>
</nav>
<main id="main">
<header id="session-header" class="session-header"></header>
<div id="branch-bar" class="branch-bar"></div>
<ol id="messages" class="messages"></ol>
</main>
</div>
<script type="application/json" id="session-data">{{DATA}}</script>
<script>{{SCRIPT}}</script>
</body>
</html>
`;
