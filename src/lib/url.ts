/**
 * The domain a reader recognises a link by: the URL's host name without a leading "www.", and without a
 * port ("www.example.com:8080/a" → "example.com"); "" when the text is not a URL.
 */
export function domainOf(url: string | URL): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}
