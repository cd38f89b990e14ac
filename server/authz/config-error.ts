/** Authorization configured wrongly (flags, the configuration file): the server does not start. */
export class AuthorizationConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthorizationConfigError';
  }
}
