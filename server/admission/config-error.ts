/** Admission configured wrongly (the configuration file, a plugin's part of it): the server does not start. */
export class AdmissionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionConfigError';
  }
}

/**
 * A plugin name the flags give that no plugin has. The reference finds it while it validates the
 * flags, so its refusal lacks the `failed to apply admission: ` of the errors found later.
 */
export class AdmissionFlagError extends AdmissionConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionFlagError';
  }
}
