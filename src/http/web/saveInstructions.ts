import { ENGLISH, type Locale } from '../../i18n/locale.js';
import { SafeHtml, html } from './html.js';

/**
 * The bookmarklet's code. It runs on the page being read: it POSTs that page's address and title to
 * variant A of the API as a form (a "simple" cross-origin request: no preflight; the API allows any
 * origin), and says what the API answered. A page whose Content-Security-Policy forbids the request
 * gets the same POST as a form sent to a new tab instead, which shows the API's JSON answer.
 */
export function bookmarkletCode(baseUrl: string, apiKey: string, locale: Locale = ENGLISH): string {
  const endpoint = `${baseUrl}/api/v1/articles?apiKey=${encodeURIComponent(apiKey)}`;
  // Each alert is one message of the catalogue with the API's answer in it: the words before and after it.
  const around = (key: 'web.saveHow.bookmarkletSaved' | 'web.saveHow.bookmarkletFailed'): string => {
    const [before = '', after = ''] = locale.t(key, { message: '\u0000' }).split('\u0000');
    return [before, 'j.message', after]
      .map((part, i) => (i === 1 ? part : part === '' ? null : JSON.stringify(part)))
      .filter((part) => part !== null)
      .join('+');
  };
  return [
    '(()=>{',
    `const e=${JSON.stringify(endpoint)},d={url:location.href,title:document.title};`,
    'fetch(e,{method:"POST",body:new URLSearchParams(d)})',
    `.then(r=>r.json().then(j=>alert(r.ok?${around('web.saveHow.bookmarkletSaved')}:${around('web.saveHow.bookmarkletFailed')})))`,
    '.catch(()=>{const f=document.createElement("form");f.method="post";f.action=e;f.target="_blank";',
    'for(const[n,v]of Object.entries(d)){const i=document.createElement("input");i.type="hidden";',
    'i.name=n;i.value=v;f.append(i)}document.body.append(f);f.submit();f.remove()})',
    '})()',
  ].join('');
}

/** The bookmarklet as a link to drag to the bookmarks bar. */
export function bookmarkletHref(baseUrl: string, apiKey: string, locale: Locale = ENGLISH): string {
  return `javascript:${encodeURIComponent(bookmarkletCode(baseUrl, apiKey, locale))}`;
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
export function baseUrlWarnings(baseUrl: string, locale: Locale = ENGLISH): string[] {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return [];
  }
  const warnings: string[] = [];
  if (isLoopbackHost(url.hostname)) {
    warnings.push(locale.t('web.saveHow.loopback', { origin: url.origin, setting: 'TIDINGS_BASE_URL' }));
  }
  if (url.protocol === 'http:') {
    warnings.push(locale.t('web.saveHow.plainHttp', { setting: 'TIDINGS_BASE_URL' }));
  }
  return warnings;
}

/** An HTML value of a message: `<code>` (a variable, a field, a method) or `<em>` (a name on a phone's screen). */
const code = (text: string): string => html`<code>${text}</code>`.value;
const em = (text: string): string => html`<em>${text}</em>`.value;

/** The ways to save a link from elsewhere, filled in with a key when there is one to show. */
export function saveInstructions(locale: Locale, baseUrl: string, apiKey: string | null): SafeHtml {
  const endpoint = `${baseUrl}/api/v1/articles?apiKey=${apiKey ?? 'YOUR_KEY'}`;
  const bookmarklet =
    apiKey === null
      ? html`<p>${locale.t('web.saveHow.noKey')}</p>`
      : html`<p>${locale.t('web.saveHow.drag')}</p>
          <p>
            <a class="bookmarklet" href="${bookmarkletHref(baseUrl, apiKey, locale)}"
              >${locale.t('web.saveHow.bookmarkletLink')}</a
            >
          </p>
          <p class="hint">${locale.t('web.saveHow.clickHere')}</p>`;
  const warnings = baseUrlWarnings(baseUrl, locale);
  return html`${
      warnings.length === 0
        ? null
        : html`<div class="error" role="note" id="address-warning">
            ${warnings.map((w) => html`<p>${w}</p>`)}
          </div>`
    }
    <h2 id="bookmarklet">${locale.t('web.saveHow.bookmarklet')}</h2>
    ${bookmarklet}
    <h2 id="curl">curl</h2>
    <p>
      ${new SafeHtml(
        locale.html(
          'web.saveHow.curlIntro',
          { key: code('TIDINGS_KEY'), set: apiKey === null ? 'yes' : 'no' },
          ['key'],
        ),
      )}
    </p>
    <pre><code>${curlExamples(baseUrl, apiKey).join('\n')}</code></pre>
    <p class="hint">
      ${new SafeHtml(
        locale.html('web.saveHow.openapi', { link: html`<a href="/openapi.json">/openapi.json</a>`.value }, [
          'link',
        ]),
      )}
    </p>
    <h2 id="phone">${locale.t('web.saveHow.phoneHeading')}</h2>
    <p>
      ${new SafeHtml(locale.html('web.saveHow.iphone', { strong: html`<strong>${locale.t('web.saveHow.iphoneName')}</strong>`.value }, ['strong']))}
    </p>
    <ol>
      <li>
        ${new SafeHtml(
          locale.html('web.saveHow.iphone1', { option: em(locale.t('web.saveHow.iosShowInShareSheet')) }, [
            'option',
          ]),
        )}
      </li>
      <li>
        ${new SafeHtml(
          locale.html(
            'web.saveHow.iphone2',
            {
              action: em(locale.t('web.saveHow.iosGetContents')),
              address: html`<code class="mono">${endpoint}</code>`.value,
              method: em('POST'),
              body: em(locale.t('web.saveHow.iosForm')),
              field: code('url'),
              input: em(locale.t('web.saveHow.iosShortcutInput')),
            },
            ['action', 'address', 'method', 'body', 'field', 'input'],
          ),
        )}
      </li>
      <li>
        ${new SafeHtml(
          locale.html('web.saveHow.iphone3', { action: em(locale.t('web.saveHow.iosShowNotification')) }, [
            'action',
          ]),
        )}
      </li>
    </ol>
    <p>
      ${new SafeHtml(locale.html('web.saveHow.android', { strong: html`<strong>${locale.t('web.saveHow.androidName')}</strong>`.value }, ['strong']))}
    </p>
    <ol>
      <li>${locale.t('web.saveHow.android1')}</li>
      <li>
        ${new SafeHtml(
          locale.html(
            'web.saveHow.android2',
            {
              add: em(locale.t('web.saveHow.chromeAddToHome')),
              install: em(locale.t('web.saveHow.chromeInstall')),
            },
            ['add', 'install'],
          ),
        )}
      </li>
      <li>
        ${new SafeHtml(
          locale.html(
            'web.saveHow.android3',
            {
              share: em(locale.t('web.saveHow.androidShare')),
              app: em('Tidings'),
              add: em(locale.t('web.queue.add.submit')),
            },
            ['share', 'app', 'add'],
          ),
        )}
      </li>
    </ol>
    <p class="hint">
      ${locale.t('web.saveHow.noKeyNeeded')}
      ${new SafeHtml(
        locale.html('web.saveHow.otherApps', { method: em('POST'), field: code('url') }, ['method', 'field']),
      )}
    </p>`;
}
