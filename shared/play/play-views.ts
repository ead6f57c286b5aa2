/**
 * The play pages as people see them: the game (started at once, or by the script that consumes
 * the token: on the player's click on Play, or as soon as it runs) and, for every refusal, a page
 * that says what happened and what to do.
 */
import type { PlayDecision, PlayGranted, PlayRefusal, PlayRefused } from './play.js';
import type { Playable } from '../catalog/index.js';
import { escapeHtml, noticeMain, scriptJson } from '../platform/http/html.js';
import type { PageView } from '../platform/http/page-pipeline.js';

/** Where the page's script starts its play session: it consumes the token and gets the play cookie. */
export interface PlayEndpoints {
  readonly sessionUrl: string;
}

/** How a page was addressed: a game or stream page, and whether it is the embed shape. */
export interface PageShape {
  readonly kind: Playable['kind'];
  /** The embed shape drops the service's header and lets the org's allowed origins frame it. */
  readonly embed: boolean;
}

/** The page for a decision. */
export function playView(decision: PlayDecision, shape: PageShape, endpoints: PlayEndpoints): PageView {
  const framing = { chrome: !shape.embed, frameAncestors: shape.embed ? decision.frameAncestors : [] };
  return decision.outcome === 'play' ? gameView(decision, framing, endpoints) : refusalView(decision, shape.kind, framing);
}

function gameView(decision: PlayGranted, framing: Pick<PageView, 'chrome' | 'frameAncestors'>, endpoints: PlayEndpoints): PageView {
  const { playable } = decision;
  const content = contentSource(playable.content_url);
  const title = `<h1 class="title">${escapeHtml(playable.name)}</h1>`;
  if (decision.start !== 'consume') {
    const frame = `<iframe id="game" src="${escapeHtml(playable.content_url)}" title="${escapeHtml(playable.name)}" allow="fullscreen; autoplay; gamepad" referrerpolicy="no-referrer"></iframe>`;
    return {
      status: 200,
      title: playable.name,
      layout: 'play',
      ...framing,
      frameSrc: [content],
      main: `${title}<div class="stage">${frame}</div>`,
    };
  }
  // Nothing is consumed until this script runs (a scanner that fetches the page never burns the
  // token), and in `click` mode not until a person clicks Play (nor one that runs the script).
  const data = { token: decision.token, contentUrl: playable.content_url, title: playable.name, embed: !framing.chrome, ...endpoints };
  const name = escapeHtml(playable.name);
  const opening =
    decision.mode === 'click'
      ? `<div class="cover" id="play-cover"><p class="name" aria-hidden="true">${name}</p><button type="button" class="start" id="play-start">Play ${name}</button>
<p class="status" id="play-status" role="status"></p></div>`
      : `<p class="status" id="play-status" role="status">Starting ${name}…</p>`;
  return {
    status: 200,
    title: playable.name,
    layout: 'play',
    ...framing,
    frameSrc: [content],
    main: `${title}<div class="stage">${opening}
<noscript><p class="status">This ${playable.kind} needs JavaScript to start.</p></noscript></div>
<script type="application/json" id="play-data">${scriptJson(data)}</script>`,
    script: CONSUME_SCRIPT,
  };
}

function refusalView(decision: PlayRefused, kind: Playable['kind'], framing: Pick<PageView, 'chrome' | 'frameAncestors'>): PageView {
  const words = refusalWords(decision.reason, decision.playable, kind);
  return {
    status: decision.status,
    title: words.title,
    layout: 'notice',
    ...framing,
    main: noticeMain({ ...words, code: decision.status }),
  };
}

const NEW_LINK = 'ask the site that sent you for a new link';

/** What a refusal page says: a title, what happened, and what to do. */
interface RefusalWords {
  readonly title: string;
  readonly what: string;
  readonly todo: string;
}

/**
 * THE copy of every refusal, by reason: a table rather than code, so that a new reason fails the
 * type check until it has its words. `name` is the game or stream, quoted by name when it was found.
 */
const REFUSAL_WORDS: Readonly<Record<PlayRefusal, (name: string, kind: Playable['kind']) => RefusalWords>> = {
  'unknown-playable': (_name, kind) => ({
    title: `${kind === 'game' ? 'Game' : 'Stream'} not found`,
    what: `There is no ${kind} at this address. It may have been removed, or the link may be mistyped.`,
    todo: `Check the link, or ${NEW_LINK}.`,
  }),
  'missing-token': (name) => ({
    title: 'This link is missing its session token',
    what: `${cap(name)} can only be opened from a personal link that carries a session token, and this address has none.`,
    todo: `Go back to the site that sent you and open it from there, or ${NEW_LINK}.`,
  }),
  'malformed-token': () => ({
    title: 'This link is damaged',
    what: 'The session token in this link is incomplete or altered. This often happens when a long link is cut off while being copied.',
    todo: `Open the link exactly as you received it, or ${NEW_LINK}.`,
  }),
  'unknown-token': () => ({
    title: 'This link is not recognised',
    what: 'We could not find the session this link refers to. It may be mistyped, or it expired long ago.',
    todo: `Please ${NEW_LINK}.`,
  }),
  'wrong-resource': (name, kind) => ({
    title: `This link is for a different ${kind}`,
    what: `The session token in this link was issued for another game or stream, not for ${name}.`,
    todo: `Open the link exactly as you received it, or ${NEW_LINK}.`,
  }),
  'player-bound': (name, kind) => ({
    title: 'Start this from the app that sent you',
    what: `This link to ${name} is reserved for one player, and only the app that gave it to you can start it: this page cannot.`,
    todo: `Go back to that app and start the ${kind} there.`,
  }),
  consumed: (name) => ({
    title: 'This link has already been used',
    what: `Each link starts one play session and works only once. This one was already used, perhaps in another browser or on another device.`,
    todo: `To play ${name} again, ${NEW_LINK}.`,
  }),
  expired: (name) => ({
    title: 'This link has expired',
    what: `Links to ${name} are valid for a limited time, and this one ran out before it was used.`,
    todo: `Please ${NEW_LINK}.`,
  }),
  revoked: () => ({
    title: 'This link has been cancelled',
    what: 'The site that gave you this link has cancelled it, so it can no longer start a session.',
    todo: `If you think this is a mistake, ${NEW_LINK}.`,
  }),
};

/** The words of a refusal, naming the game or stream when it was found. */
function refusalWords(reason: PlayRefusal, playable: Playable | undefined, kind: Playable['kind']): RefusalWords {
  return REFUSAL_WORDS[reason](playable ? `“${playable.name}”` : `this ${kind}`, kind);
}

function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The CSP `frame-src` source of a content URL: `'self'` for a path on this site, the origin for an
 * http(s) URL. Anything else (`javascript:`, `data:`) is refused: it must never reach the iframe.
 */
function contentSource(contentUrl: string): string {
  if (contentUrl.startsWith('/') && !contentUrl.startsWith('//')) return "'self'";
  const url = URL.canParse(contentUrl) ? new URL(contentUrl) : undefined;
  if (url && (url.protocol === 'https:' || url.protocol === 'http:')) return url.origin;
  throw new Error(`content_url is neither a path nor an http(s) URL: ${contentUrl.slice(0, 40)}`);
}

/**
 * The page's script (runs under the nonce): one request consumes the token and sets the play
 * cookie; its answer is the consumption's (consume-session's data), whose session id the game's
 * frame carries (`data-session-id`); then the game starts. With a Play button (`click` mode) the
 * request is sent only from a person's activation of it: a trusted click or key press
 * (`event.isTrusted`, and `navigator.userActivation.isActive` where the browser has it), never on
 * load and never from a script's `click()`. A 410 means the token was used or expired since the
 * page was served; reloading shows the server's page that says which, or plays again when this
 * browser's cookie says it was this browser (another tab): it never offers to consume again.
 */
const CONSUME_SCRIPT = `(() => {
  const data = JSON.parse(document.getElementById('play-data').textContent);
  const status = document.getElementById('play-status');
  const fail = (text) => { status.textContent = text; };
  const start = (session) => {
    const frame = document.createElement('iframe');
    frame.id = 'game';
    frame.dataset.sessionId = session.session_id;
    frame.title = data.title;
    frame.allow = 'fullscreen; autoplay; gamepad';
    frame.referrerPolicy = 'no-referrer';
    frame.src = data.contentUrl;
    (document.getElementById('play-cover') || status).replaceWith(frame);
  };
  const consume = () => (async () => {
    const answer = await fetch(data.sessionUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: data.token, embed: data.embed }),
    });
    if (answer.status === 410) return location.reload();
    if (!answer.ok) return fail('The game could not start (error ' + answer.status + '). Reload the page to try again.');
    start((await answer.json()).data);
  })().catch(() => fail('The game could not start. Check your connection, then reload the page.'));
  const button = document.getElementById('play-start');
  if (!button) return consume();
  button.focus();
  button.addEventListener('click', (event) => {
    const person = event.isTrusted && (!navigator.userActivation || navigator.userActivation.isActive);
    if (!person || button.disabled) return;
    button.disabled = true;
    status.textContent = 'Starting ' + data.title + '…';
    consume();
  });
})();`;
