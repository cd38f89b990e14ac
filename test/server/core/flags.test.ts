import { DurationError, parseGoDuration } from '../../../server/config/duration';
import { DEFAULT_OPTIONS, FlagError, parseFlags } from '../../../server/config/flags';

function options(argv: string[]) {
  const result = parseFlags(argv);
  if (!('options' in result)) throw new Error('expected options');
  return result.options;
}

describe('parseGoDuration', () => {
  it.each([
    ['0', 0], ['5m0s', 300_000], ['5m', 300_000], ['1h2m3.5s', 3_723_500], ['300ms', 300], ['1.5h', 5_400_000],
    ['-2s', -2000], ['+2s', 2000], ['.5s', 500], ['1us', 0.001], ['1µs', 0.001], ['10ns', 0.00001], ['0s', 0],
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms as number, 9);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['abc', 'time: invalid duration "abc"'],
    ['5', 'time: missing unit in duration "5"'],
    ['5x', 'time: unknown unit "x" in duration "5x"'],
    ['.s', 'time: invalid duration ".s"'],
    ['-', 'time: invalid duration "-"'],
  ])('%j fails with Go\'s message', (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(new DurationError(message));
  });
});

describe('parseFlags', () => {
  it('has the defaults', () => {
    expect(options([])).toEqual(DEFAULT_OPTIONS);
    expect(DEFAULT_OPTIONS).toMatchObject({ securePort: 6443, bindAddress: '127.0.0.1', etcdPrefix: '/registry', etcdCompactionIntervalMs: 300_000, dataDir: './data' });
  });

  it('takes --flag=value and --flag value', () => {
    expect(
      options([
        '--secure-port=7443', '--bind-address', '127.0.0.2', '--etcd-servers=http://127.0.0.1:2379, http://127.0.0.1:2380',
        '--etcd-prefix', '/capstan', '--etcd-compaction-interval=0', '--shutdown-delay-duration', '1.5s',
        '--feature-gates=AllAlpha=true,APIResponseCompression=false', '--feature-gates', 'kube:CBORServingAndStorage=1', '--runtime-config=api/all=true,apps/v1beta1',
        '--livez-grace-period=30s', '--data-dir=/tmp/x', '--tls-cert-file', 'c.pem', '--tls-private-key-file=k.pem', '--client-ca-file=ca.pem',
        '--cert-dir=/tmp/certs', '--service-cluster-ip-range=10.0.0.0/24', '--allow-privileged=true',
      ]),
    ).toEqual({
      // Every option not given keeps its default.
      ...DEFAULT_OPTIONS,
      securePort: 7443,
      bindAddress: '127.0.0.2',
      etcdServers: ['http://127.0.0.1:2379', 'http://127.0.0.1:2380'],
      etcdPrefix: '/capstan',
      etcdCompactionIntervalMs: 0,
      shutdownDelayMs: 1500,
      featureGates: { AllAlpha: true, APIResponseCompression: false, CBORServingAndStorage: true },
      runtimeConfig: { 'api/all': 'true', 'apps/v1beta1': 'true' },
      livezGracePeriodMs: 30_000,
      dataDir: '/tmp/x',
      tlsCertFile: 'c.pem',
      tlsPrivateKeyFile: 'k.pem',
      clientCaFile: 'ca.pem',
      certDir: '/tmp/certs',
      serviceClusterIpRange: '10.0.0.0/24',
    });
  });

  it.each([
    [['--no-such-flag=1'], 'unknown flag: --no-such-flag'],
    [['--secure-port'], 'flag needs an argument: --secure-port'],
    [['--secure-port=http'], 'invalid argument "http" for "--secure-port" flag: not a port number'],
    [['--etcd-compaction-interval=5'], 'invalid argument "5" for "--etcd-compaction-interval" flag: time: missing unit in duration "5"'],
    [['--feature-gates=AllAlpha=yes'], 'invalid argument "AllAlpha=yes" for "--feature-gates" flag: invalid value of AllAlpha: yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    // The reference's texts for a name it does not know and a gate locked to its default.
    [['--feature-gates=NoSuchGate=true'], 'invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate'],
    [
      ['--feature-gates=StructuredAuthorizationConfiguration=false'],
      'invalid argument "StructuredAuthorizationConfiguration=false" for "--feature-gates" flag: cannot set feature gate StructuredAuthorizationConfiguration to false, feature is locked to true',
    ],
    [['serve'], '"capstan" does not take any arguments, got ["serve"]'],
    [['--cert-dir='], 'invalid argument "" for "--cert-dir" flag: must name a directory'],
    [['--service-cluster-ip-range=10.0.0.0'], 'invalid argument "10.0.0.0" for "--service-cluster-ip-range" flag: invalid service CIDR "10.0.0.0"'],
    // Until pod validation refuses privileged containers, only the value that describes capstan is taken.
    [['--allow-privileged=false'], 'invalid argument "false" for "--allow-privileged" flag: capstan does not refuse privileged containers yet: only true is supported'],
  ])('%j fails: %s', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(new FlagError(message));
  });

  it('answers --help with the flag list', () => {
    const result = parseFlags(['--help']);
    expect('help' in result && result.help).toContain('--etcd-servers');
  });
});
