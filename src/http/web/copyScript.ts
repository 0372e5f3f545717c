import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS, sendAsset } from './context.js';

/**
 * The copy buttons' script (the Newsletters page's address): a same-origin file at a path carrying its
 * hash, as the passkey script is. It shows each `button[data-copy]` (hidden without JavaScript, where the
 * address is selectable text all the same) and copies the text of the element its value names.
 */
export const COPY_SCRIPT = `'use strict';
(function () {
  if (!navigator.clipboard) return;
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(
        function () { button.textContent = 'Copied'; },
        function () { button.textContent = 'Select it and copy'; }
      );
      setTimeout(function () { button.textContent = label; }, 3000);
    });
  });
})();
`;

export const COPY_SCRIPT_PATH = `/static/copy.${createHash('sha256').update(COPY_SCRIPT).digest('hex').slice(0, 12)}.js`;

/** The policy of the pages that load it: the usual one, plus same-origin scripts. */
export const COPY_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': `${SECURITY_HEADERS['content-security-policy'] ?? ''}; script-src 'self'`,
};

export function registerCopyScript(app: FastifyInstance): void {
  const body = Buffer.from(COPY_SCRIPT);
  app.get(COPY_SCRIPT_PATH, (_request, reply) => sendAsset(reply, 'text/javascript; charset=utf-8', body));
}
