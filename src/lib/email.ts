/** An e-mail address as Tidings accepts one: something@domain.tld, at most 320 characters, no spaces. */
export function isEmailAddress(address: string): boolean {
  return address.length <= 320 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address);
}
