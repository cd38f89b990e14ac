/**
 * Every flag of kube-apiserver 1.34 parses with the reference's syntax; one capstan does not act
 * on is accepted at its default only, and any other value stops the start with one line naming
 * the flag and why. Shorthands, `--version`, deprecation warnings and the defaults that differ
 * between `capstan` and `kube-apiserver` are the reference's too.
 */
import { FlagError, parseFlags, personalityOf, type ServerOptions } from '../../../server/config/flags';
import { REFERENCE_FLAGS } from '../../../server/config/reference-flags';

function parsed(argv: readonly string[], personality: 'capstan' | 'kube-apiserver' = 'capstan') {
  const result = parseFlags(argv, personality);
  if (!('options' in result)) throw new Error(`expected options, got ${JSON.stringify(result)}`);
  return result;
}

function options(argv: readonly string[], personality: 'capstan' | 'kube-apiserver' = 'capstan'): ServerOptions {
  return parsed(argv, personality).options;
}

describe('a flag capstan does not act on', () => {
  it('is accepted at its default, in any spelling of it', () => {
    expect(() =>
      options([
        '--tracing-config-file=',
        '--watch-cache=1',
        '--watch-cache',
        '--delete-collection-workers=1',
        '--storage-initialization-timeout=60s',
      ]),
    ).not.toThrow();
    expect(() =>
      options([
        '--storage-initialization-timeout=60s',
        '--service-node-port-range=30000-32767',
        '--service-node-port-range=30000+2767',
      ]),
    ).not.toThrow();
    expect(() =>
      options(['--storage-media-type', 'application/vnd.kubernetes.protobuf', '--enable-garbage-collector=T']),
    ).not.toThrow();
  });

  it.each([
    [
      '--tracing-config-file=/etc/tracing.yaml',
      '--tracing-config-file=/etc/tracing.yaml: capstan exports no traces; capstan accepts only its default ""',
    ],
    ['--watch-cache=false', '--watch-cache=false: '],
    [
      '--storage-initialization-timeout=5m',
      '--storage-initialization-timeout=5m: capstan waits for its store without this bound',
    ],
  ])('%s is refused with the reason', (flag, message) => {
    expect(() => parseFlags([flag])).toThrow(FlagError);
    expect(() => parseFlags([flag])).toThrow(message);
  });

  it("refuses a value its type refuses, in Go's words", () => {
    expect(() => parseFlags(['--delete-collection-workers=many'])).toThrow(
      'invalid argument "many" for "--delete-collection-workers" flag: strconv.ParseInt: parsing "many": invalid syntax',
    );
    expect(() => parseFlags(['--storage-initialization-timeout=soon'])).toThrow(
      'invalid argument "soon" for "--storage-initialization-timeout" flag: time: invalid duration "soon"',
    );
    expect(() => parseFlags(['--watch-cache=maybe'])).toThrow(
      'invalid argument "maybe" for "--watch-cache" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    );
  });

  it('needs its value when it is not a bool', () => {
    expect(() => parseFlags(['--storage-initialization-timeout'])).toThrow(
      'flag needs an argument: --storage-initialization-timeout',
    );
  });

  it('every flag of the reference is known', () => {
    for (const [name, flag] of Object.entries(REFERENCE_FLAGS)) {
      if (name === 'version') continue;
      const result = (() => {
        try {
          return parseFlags([`--${name}=${flag.default}`]);
        } catch (error) {
          return error as Error;
        }
      })();
      expect({ name, unknown: result instanceof Error && result.message.startsWith('unknown flag') }).toEqual({
        name,
        unknown: false,
      });
    }
    expect(() => parseFlags(['--insecure-port=0'])).toThrow('unknown flag: --insecure-port');
  });
});

describe('pflag syntax', () => {
  it('takes the shorthand -v in every spelling', () => {
    expect(options(['-v', '2']).logVerbosity).toBe(2);
    expect(options(['-v=3']).logVerbosity).toBe(3);
    expect(options(['-v4']).logVerbosity).toBe(4);
    expect(options(['--v=5']).logVerbosity).toBe(5);
    expect(() => parseFlags(['-v=-1'])).toThrow(
      'invalid argument "-1" for "--v" flag: strconv.ParseUint: parsing "-1": invalid syntax',
    );
    expect(() => parseFlags(['-q'])).toThrow("unknown shorthand flag: 'q' in -q");
  });

  it('answers --version and --version=raw before anything starts', () => {
    expect(parseFlags(['--version'])).toEqual({ version: 'true' });
    expect(parseFlags(['--version=raw'])).toEqual({ version: 'raw' });
    expect(parsed(['--version=false']).options).toBeDefined();
  });

  it('warns of a deprecated flag, as the reference does', () => {
    expect(parsed(['--apiserver-count=1']).warnings).toEqual([
      'Flag --apiserver-count has been deprecated in the reference kube-apiserver',
    ]);
    expect(parsed([]).warnings).toEqual([]);
  });
});

describe('defaults by the name started under', () => {
  it('is kube-apiserver only under that name', () => {
    expect(personalityOf('/usr/local/bin/kube-apiserver')).toBe('kube-apiserver');
    expect(personalityOf('kube-apiserver')).toBe('kube-apiserver');
    expect(personalityOf('/usr/bin/node')).toBe('capstan');
    expect(personalityOf('capstan')).toBe('capstan');
  });

  it("as kube-apiserver: the reference's bind address, authorization and no controller copies", () => {
    expect(options([], 'kube-apiserver')).toMatchObject({
      bindAddress: '0.0.0.0',
      controllers: [],
      authorizationModes: ['AlwaysAllow'],
      anonymousAuth: false,
      certDir: '/var/run/kubernetes',
    });
    expect(
      options(['--authorization-mode=RBAC', '--controllers=namespace-controller'], 'kube-apiserver'),
    ).toMatchObject({ authorizationModes: ['RBAC'], controllers: ['namespace-controller'] });
    expect(options(['--authorization-config=/etc/authz.yaml'], 'kube-apiserver').authorizationModes).toBeUndefined();
  });

  it('refuses anonymous requests wherever AlwaysAllow authorizes, as the reference', () => {
    const { options: allowAll, warnings } = parsed(['--authorization-mode=RBAC,AlwaysAllow']);
    expect(allowAll.anonymousAuth).toBe(false);
    expect(warnings).toEqual([
      '--anonymous-auth is set to false: the AlwaysAllow authorizer would let anonymous requests do anything',
    ]);
    expect(options(['--authorization-mode=RBAC']).anonymousAuth).toBe(true);
  });

  it('as capstan: loopback, RBAC unless asked otherwise, and its controller copies', () => {
    const capstan = options([]);
    expect(capstan).toMatchObject({ bindAddress: '127.0.0.1', controllers: ['*'] });
    expect(capstan.certDir).toBeUndefined();
    expect(capstan.authorizationModes).toBeUndefined();
  });
});

describe('flags whose whole meaning capstan has', () => {
  it('--storage-backend is etcd3 or nothing', () => {
    expect(() => options(['--storage-backend=etcd3', '--storage-backend='])).not.toThrow();
    expect(() => parseFlags(['--storage-backend=etcd2'])).toThrow(
      "--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'",
    );
  });

  it('--audit-webhook-batch-initial-backoff is the deprecated name of --audit-webhook-initial-backoff', () => {
    expect(options(['--audit-webhook-batch-initial-backoff=3s']).audit.webhookInitialBackoffMs).toBe(3000);
  });

  it('--disable-http2-serving takes either value: capstan serves HTTP/1.1 only', () => {
    expect(() =>
      options(['--disable-http2-serving', '--disable-http2-serving=true', '--disable-http2-serving=false']),
    ).not.toThrow();
    expect(() => parseFlags(['--disable-http2-serving=sometimes'])).toThrow(
      'invalid argument "sometimes" for "--disable-http2-serving" flag: strconv.ParseBool: parsing "sometimes": invalid syntax',
    );
  });

  it('--service-account-extend-token-expiration', () => {
    expect(options([]).serviceAccountExtendTokenExpiration).toBe(true);
    expect(options(['--service-account-extend-token-expiration=false']).serviceAccountExtendTokenExpiration).toBe(
      false,
    );
  });
});

describe('--emulated-version', () => {
  it('takes its own version, 1.34, in either spelling', () => {
    expect(() => options(['--emulated-version=1.34', '--emulated-version=kube=1.34'])).not.toThrow();
  });

  it('refuses an earlier release, which the reference would emulate, and what the reference refuses', () => {
    expect(() => parseFlags(['--emulated-version=1.33'])).toThrow(
      '--emulated-version=1.33: capstan serves 1.34 only and emulates no earlier release',
    );
    expect(() => parseFlags(['--emulated-version=wardle=1.2'])).toThrow('component not registered: wardle');
    expect(() => parseFlags(['--emulated-version=kube=one'])).toThrow(FlagError);
  });
});
