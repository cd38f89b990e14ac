/** The encryption configuration file refused (--encryption-provider-config): the server does not start, or a reload is not applied. */
export class EncryptionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncryptionConfigError';
  }
}
