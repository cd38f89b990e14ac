/** An --authentication-config file the server refuses, in the reference's whole words: the start stops (exit 2). */
export class AuthenticationConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationConfigError';
  }
}
