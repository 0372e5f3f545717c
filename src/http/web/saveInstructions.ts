import { type SafeHtml, html } from './html.js';

/**
 * The bookmarklet's code. It runs on the page being read: it POSTs that page's address and title to
 * variant A of the API as a form (a "simple" cross-origin request: no preflight; the API allows any
 * origin), and says what the API answered. A page whose Content-Security-Policy forbids the request
 * gets the same POST as a form sent to a new tab instead, which shows the API's JSON answer.
 */
export function bookmarkletCode(baseUrl: string, apiKey: string): string {
  const endpoint = `${baseUrl}/api/v1/articles?apiKey=${encodeURIComponent(apiKey)}`;
  return [
    '(()=>{',
    `const e=${JSON.stringify(endpoint)},d={url:location.href,title:document.title};`,
    'fetch(e,{method:"POST",body:new URLSearchParams(d)})',
    '.then(r=>r.json().then(j=>alert((r.ok?"Tidings: ":"Tidings could not save this page: ")+j.message)))',
    '.catch(()=>{const f=document.createElement("form");f.method="post";f.action=e;f.target="_blank";',
    'for(const[n,v]of Object.entries(d)){const i=document.createElement("input");i.type="hidden";',
    'i.name=n;i.value=v;f.append(i)}document.body.append(f);f.submit();f.remove()})',
    '})()',
  ].join('');
}

/** The bookmarklet as a link to drag to the bookmarks bar. */
export function bookmarkletHref(baseUrl: string, apiKey: string): string {
  return `javascript:${encodeURIComponent(bookmarkletCode(baseUrl, apiKey))}`;
}

/** Shell-quoted in single quotes. */
const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** curl lines for both variants; with no key, they read it from $TIDINGS_KEY. */
export function curlExamples(baseUrl: string, apiKey: string | null): string[] {
  const a = `${baseUrl}/api/v1/articles?apiKey=`;
  const b = `${baseUrl}/api?api_key=`;
  const target = (prefix: string): string =>
    apiKey === null ? `"${prefix}$TIDINGS_KEY"` : sq(prefix + apiKey);
  return [
    `curl -X POST ${target(a)} --data-urlencode 'url=https://example.com/article' --data-urlencode 'title=An article'`,
    `curl -X POST ${target(b)} --data-urlencode 'url=https://example.com/article'`,
  ];
}

/** Whether a host name is this machine's own: localhost (and *.localhost), 127.0.0.0/8, ::1, 0.0.0.0. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    host === '::1' ||
    host === '0.0.0.0' ||
    host === '::'
  );
}

/**
 * What the addresses on the Save page cannot do, in plain words (TIDINGS_BASE_URL is what they are made
 * of): a loopback address reaches only this computer, never a phone; plain http is not enough for
 * installing Tidings as an app on Android (browsers install web apps only over https) and carries the keys
 * in these addresses unencrypted. Empty when the address is a public https one.
 */
export function baseUrlWarnings(baseUrl: string): string[] {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return [];
  }
  const warnings: string[] = [];
  if (isLoopbackHost(url.hostname)) {
    warnings.push(
      `This Tidings’ address, ${url.origin}, is this computer’s own (loopback): a phone or any other device cannot reach it, so the addresses below work only on this computer. The operator sets the address others use in TIDINGS_BASE_URL.`,
    );
  }
  if (url.protocol === 'http:') {
    warnings.push(
      `This Tidings’ address is plain http: Android installs Tidings as an app (and so adds it to the share menu) only over https, and the keys in these addresses travel unencrypted. Serve Tidings over https and set TIDINGS_BASE_URL to that address.`,
    );
  }
  return warnings;
}

/** The ways to save a link from elsewhere, filled in with a key when there is one to show. */
export function saveInstructions(baseUrl: string, apiKey: string | null): SafeHtml {
  const endpoint = `${baseUrl}/api/v1/articles?apiKey=${apiKey ?? 'YOUR_KEY'}`;
  const bookmarklet =
    apiKey === null
      ? html`<p>
          The bookmarklet carries a key inside it. Make one above: with a new key, or with one you already
          have.
        </p>`
      : html`<p>
            Drag this link to your bookmarks bar (or bookmark it). On any page, click it to save that page to
            your queue:
          </p>
          <p><a class="bookmarklet" href="${bookmarkletHref(baseUrl, apiKey)}">Save to Tidings</a></p>
          <p class="hint">
            Clicking it here does nothing: this page does not run scripts. The key is inside the bookmark, so
            keep it to yourself; revoke the key on the Keys page if it leaks.
          </p>`;
  const warnings = baseUrlWarnings(baseUrl);
  return html`${
      warnings.length === 0
        ? null
        : html`<div class="error" role="note" id="address-warning">
            ${warnings.map((w) => html`<p>${w}</p>`)}
          </div>`
    }
    <h2 id="bookmarklet">Bookmarklet</h2>
    ${bookmarklet}
    <h2 id="curl">curl</h2>
    <p>
      Either variant of the API saves to the same
      queue${apiKey === null ? html` (set <code>TIDINGS_KEY</code> to one of your keys first)` : null}:
    </p>
    <pre><code>${curlExamples(baseUrl, apiKey).join('\n')}</code></pre>
    <p class="hint">
      The full API, with JSON and multipart bodies and every error, is described at
      <a href="/openapi.json">/openapi.json</a>.
    </p>
    <h2 id="phone">From your phone’s share menu</h2>
    <p><strong>iPhone and iPad</strong> (the Shortcuts app):</p>
    <ol>
      <li>Create a shortcut and turn on <em>Show in Share Sheet</em>; let it receive URLs.</li>
      <li>
        Add the action <em>Get Contents of URL</em> with the address <code class="mono">${endpoint}</code>,
        method <em>POST</em>, request body <em>Form</em>, and one field: <code>url</code> set to
        <em>Shortcut Input</em>.
      </li>
      <li>
        Optionally add <em>Show Notification</em> to see that it worked. Then share any page to the shortcut.
      </li>
    </ol>
    <p><strong>Android</strong> (Chrome): install Tidings as an app, and it joins the share menu.</p>
    <ol>
      <li>Open Tidings in Chrome and sign in.</li>
      <li>In Chrome’s menu (⋮), choose <em>Add to Home screen</em> or <em>Install app</em>.</li>
      <li>
        In any app, <em>Share</em> a page and choose <em>Tidings</em>: it opens with the address and title
        filled in; tap <em>Add to queue</em>.
      </li>
    </ol>
    <p class="hint">
      No key is needed for this: the app uses this browser’s sign-in. Chrome on a computer can install Tidings
      too (the install icon in the address bar). Without installing, an app that sends web requests from the
      share menu, such as HTTP Shortcuts, can send a <em>POST</em> to the address above with a form field
      <code>url</code> set to the shared text.
    </p>`;
}
