const SECRET_PARAMS = new Set(['apikey', 'api_key', 'token']);

/**
 * A request URL fit for logs: the values of apiKey / api_key (API keys) and of token (the digest token of
 * /digests/:id and /digests.atom), however encoded, replaced.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // keep the raw name
      }
      return SECRET_PARAMS.has(decoded.trim().toLowerCase()) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}
