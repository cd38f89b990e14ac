/** Admission configured wrongly (flags, the configuration file, a plugin's part of it): the server does not start. */
export class AdmissionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionConfigError';
  }
}
