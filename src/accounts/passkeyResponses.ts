import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import * as z from 'zod';

/**
 * What the browser sends back from navigator.credentials.create() / get(), as the page's script encodes it
 * (base64url strings, the WebAuthn JSON forms). Read from an untrusted form field: parsed with a size limit
 * and a schema, anything else is null. The library checks the contents.
 */

/** The most characters a credential response field may have (attestations with certificates fit). */
export const RESPONSE_MAX_CHARS = 64 * 1024;

const b64url = z
  .string()
  .max(RESPONSE_MAX_CHARS)
  .regex(/^[A-Za-z0-9_-]*$/);
const transports = z.array(z.string().max(32)).max(16);

const common = {
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal('public-key'),
  clientExtensionResults: z.object({}).loose().default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

const registrationSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url,
    attestationObject: b64url,
    transports: transports.optional(),
  }),
});

const authenticationSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url,
    authenticatorData: b64url,
    signature: b64url,
    userHandle: b64url.optional(),
  }),
});

function parseJson(text: string | undefined): unknown {
  if (text === undefined || text.length > RESPONSE_MAX_CHARS) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function parseRegistrationResponse(text: string | undefined): RegistrationResponseJSON | null {
  const parsed = registrationSchema.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}

export function parseAuthenticationResponse(text: string | undefined): AuthenticationResponseJSON | null {
  const parsed = authenticationSchema.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}
