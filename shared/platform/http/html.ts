/**
 * The HTML of the service's pages: one document shell (with or without the service's header),
 * escaping, and the stylesheet. Everything inline carries the response's CSP nonce.
 */

/** Escape text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON for a `<script type="application/json">` block: `<` is escaped so that no value can close
 * the script element, and U+2028/2029 so that it stays valid JavaScript too.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** What a page is made of. */
export interface DocumentParts {
  readonly title: string;
  /** Inner HTML of `<main>`, already escaped by the caller. */
  readonly main: string;
  /** The service's header bar; false for the embed shape, which must show nothing but the game. */
  readonly chrome: boolean;
  /** `<body>` class: `play` lays the game out full-size, `notice` centres a message card. */
  readonly layout: 'play' | 'notice';
  /** Inline script, run with the nonce. */
  readonly script?: string | undefined;
  readonly nonce: string;
}

/** The whole document. */
export function htmlDocument(parts: DocumentParts): string {
  const header = parts.chrome ? `<header class="bar"><span class="brand">Game Session</span></header>` : '';
  const script = parts.script ? `<script nonce="${parts.nonce}">${parts.script}</script>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(parts.title)}</title>
<style nonce="${parts.nonce}">${STYLES}</style>
</head>
<body class="${parts.layout}${parts.chrome ? ' chrome' : ''}">
${header}<main>${parts.main}</main>
${script}
</body>
</html>
`;
}

/** A message page: a title, what happened, and what to do. */
export function noticeMain(notice: { title: string; what: string; todo: string; code: number }): string {
  return `<section class="card" role="alert" aria-labelledby="notice-title">
<p class="code">Error ${notice.code}</p>
<h1 id="notice-title">${escapeHtml(notice.title)}</h1>
<p class="what">${escapeHtml(notice.what)}</p>
<p class="todo"><strong>What to do:</strong> ${escapeHtml(notice.todo)}</p>
</section>`;
}

const STYLES = `
*{box-sizing:border-box}
html,body{margin:0;height:100%}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f3f4f8;display:flex;flex-direction:column}
.bar{flex:none;padding:.6rem 1.2rem;background:#1d2330;color:#fff}
.brand{font-weight:600;letter-spacing:.02em}
main{flex:1;display:flex;flex-direction:column;min-height:0}
.notice main{align-items:center;justify-content:center;padding:1.5rem}
.card{max-width:34rem;background:#fff;border-radius:12px;padding:2rem 2.2rem;box-shadow:0 6px 24px rgba(20,30,60,.12)}
.card h1{margin:.2rem 0 .8rem;font-size:1.6rem;line-height:1.25}
.card .code{margin:0;color:#8a90a2;font-size:.85rem;text-transform:uppercase;letter-spacing:.08em}
.card .what{margin:0 0 1rem}
.card .todo{margin:0;padding:.8rem 1rem;background:#eef3ff;border-left:4px solid #3d6df2;border-radius:4px}
.play .title{margin:0;padding:.5rem 1.2rem;font-size:1.1rem;background:#fff;border-bottom:1px solid #dde0ea}
.play:not(.chrome) .title{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
.stage{flex:1;display:flex;align-items:center;justify-content:center;min-height:0}
.stage iframe{width:100%;height:100%;border:0;display:block}
.status{color:#4a5068}
.cover{display:flex;flex-direction:column;align-items:center;gap:1rem;padding:2rem;text-align:center}
.cover .name{margin:0;font-size:1.4rem;font-weight:600}
.start{font:inherit;font-size:1.15rem;padding:.75rem 2.4rem;border:0;border-radius:999px;background:#2f5bd3;color:#fff;cursor:pointer}
.start:focus-visible{outline:3px solid #1d2330;outline-offset:3px}
.start:disabled{opacity:.65;cursor:default}
`;
