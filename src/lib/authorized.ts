declare const authorized: unique symbol;

/**
 * An account id that an authentication produced: a valid API key, a signed-in web session, or the
 * operator naming an existing account on the command line (see src/accounts/authorize.ts, the only
 * place that makes one). Account-scoped services take this type, not a number, so that a route cannot
 * forget to authorise before it calls them. Karakeep's `Authorized<T>` is the model.
 */
export type AccountId = number & { readonly [authorized]: true };
