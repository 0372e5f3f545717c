import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS, sendAsset } from './context.js';

/**
 * The web app's one script: passkeys need the browser's WebAuthn API, which only JavaScript reaches. It is
 * served as a same-origin file at a path carrying its hash (no inline script: pages that load it allow
 * `script-src 'self'` and `connect-src 'self'`, nothing more). It takes every `[data-passkey]` box out of
 * hiding when the browser has WebAuthn, and turns the submit of its form into: fetch the options (made and
 * kept by the server), ask the authenticator, put its answer (base64url, encoded by hand: no library) into
 * the form's `credential` field, and send the form as usual. Without JavaScript those boxes stay hidden and
 * the password and key forms work alone.
 */
export const PASSKEY_SCRIPT = `'use strict';
(function () {
  var supported = typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;
  if (!supported) return;

  function toB64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var text = '';
    for (var i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]);
    return btoa(text).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }

  function fromB64url(value) {
    var base64 = value.replace(/-/g, '+').replace(/_/g, '/');
    while (base64.length % 4 !== 0) base64 += '=';
    var text = atob(base64);
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes.buffer;
  }

  function withIds(list) {
    return (list || []).map(function (c) {
      return { type: c.type, id: fromB64url(c.id), transports: c.transports };
    });
  }

  function creationOptions(o) {
    var out = Object.assign({}, o);
    out.challenge = fromB64url(o.challenge);
    out.user = Object.assign({}, o.user, { id: fromB64url(o.user.id) });
    out.excludeCredentials = withIds(o.excludeCredentials);
    return out;
  }

  function requestOptions(o) {
    var out = Object.assign({}, o);
    out.challenge = fromB64url(o.challenge);
    if (o.allowCredentials) out.allowCredentials = withIds(o.allowCredentials);
    return out;
  }

  function encode(cred) {
    var r = cred.response;
    var response = { clientDataJSON: toB64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toB64url(r.attestationObject);
      response.transports = typeof r.getTransports === 'function' ? r.getTransports() : [];
    } else {
      response.authenticatorData = toB64url(r.authenticatorData);
      response.signature = toB64url(r.signature);
      if (r.userHandle) response.userHandle = toB64url(r.userHandle);
    }
    var out = {
      id: cred.id,
      rawId: toB64url(cred.rawId),
      type: cred.type,
      response: response,
      clientExtensionResults: {},
    };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    return JSON.stringify(out);
  }

  function say(form, text) {
    var status = form.querySelector('[data-passkey-status]');
    if (!status) return;
    status.textContent = text;
    status.hidden = text === '';
  }

  function failure(error) {
    if (error && error.name === 'NotAllowedError') {
      return 'No passkey was used: the request was cancelled or timed out. Try again when you are ready.';
    }
    if (error && error.name === 'InvalidStateError') {
      return 'This device already holds a passkey for your account.';
    }
    if (error && error.name === 'SecurityError') {
      return 'This browser refused passkeys for this address: Tidings must be opened at its public https address.';
    }
    return (error && error.message) || 'The passkey could not be used.';
  }

  function start(form, event) {
    event.preventDefault();
    var mode = form.getAttribute('data-passkey');
    var button = form.querySelector('button[type="submit"]');
    var body = new URLSearchParams();
    body.set('_csrf', form.elements.namedItem('_csrf').value);
    if (button) button.disabled = true;
    say(form, '');
    fetch(form.getAttribute('data-options'), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body.toString(),
    })
      .then(function (res) {
        return res.json().then(function (json) {
          if (!res.ok) throw new Error(json.message || 'The passkey options could not be fetched.');
          return json;
        });
      })
      .then(function (options) {
        return mode === 'register'
          ? navigator.credentials.create({ publicKey: creationOptions(options) })
          : navigator.credentials.get({ publicKey: requestOptions(options) });
      })
      .then(function (cred) {
        if (!cred) throw new Error('No passkey was given.');
        form.elements.namedItem('credential').value = encode(cred);
        form.submit();
      })
      .catch(function (error) {
        if (button) button.disabled = false;
        say(form, failure(error));
      });
  }

  document.querySelectorAll('[data-passkey-box]').forEach(function (box) {
    box.hidden = false;
  });
  document.querySelectorAll('[data-passkey-fallback]').forEach(function (note) {
    note.hidden = true;
  });
  document.querySelectorAll('form[data-passkey]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      start(form, event);
    });
  });
})();
`;

export const PASSKEY_SCRIPT_PATH = `/static/passkeys.${createHash('sha256').update(PASSKEY_SCRIPT).digest('hex').slice(0, 12)}.js`;

/** The policy of the pages that load the script: the usual one, plus same-origin scripts and requests. */
export const PASSKEY_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': `${SECURITY_HEADERS['content-security-policy'] ?? ''}; script-src 'self'; connect-src 'self'`,
};

export function registerPasskeyScript(app: FastifyInstance): void {
  const body = Buffer.from(PASSKEY_SCRIPT);
  app.get(PASSKEY_SCRIPT_PATH, (_request, reply) => sendAsset(reply, 'text/javascript; charset=utf-8', body));
}
