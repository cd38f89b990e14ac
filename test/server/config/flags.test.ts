import { DurationError, parseGoDuration } from '../../../server/config/duration';
import { DEFAULT_OPTIONS, FlagError, parseFlags } from '../../../server/config/flags';

function options(argv: string[]) {
  const result = parseFlags(argv);
  if (!('options' in result)) throw new Error('expected options');
  return result.options;
}

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['5m0s', 300_000],
    ['5m', 300_000],
    ['1h2m3.5s', 3_723_500],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['-2s', -2000],
    ['+2s', 2000],
    ['.5s', 500],
    ['1us', 0.001],
    ['1µs', 0.001],
    ['10ns', 0.00001],
    ['0s', 0],
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
  ])("%j fails with Go's message", (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(new DurationError(message));
  });
});

describe('parseFlags', () => {
  it('has the defaults', () => {
    expect(options([])).toEqual(DEFAULT_OPTIONS);
    expect(DEFAULT_OPTIONS).toMatchObject({
      securePort: 6443,
      bindAddress: '127.0.0.1',
      etcdPrefix: '/registry',
      etcdCompactionIntervalMs: 300_000,
      dataDir: './data',
    });
  });

  it('takes --flag=value and --flag value', () => {
    expect(
      options([
        '--secure-port=7443',
        '--bind-address',
        '127.0.0.2',
        '--etcd-servers=http://127.0.0.1:2379, http://127.0.0.1:2380',
        '--etcd-prefix',
        '/capstan',
        '--etcd-compaction-interval=0',
        '--shutdown-delay-duration',
        '1.5s',
        '--feature-gates=AllowUnsafeMalformedObjectDeletion=true,APIResponseCompression=false',
        '--feature-gates',
        'kube:CBORServingAndStorage=1',
        '--runtime-config=api/all=true,apps/v1beta1',
        '--livez-grace-period=30s',
        '--data-dir=/tmp/x',
        '--tls-cert-file',
        'c.pem',
        '--tls-private-key-file=k.pem',
        '--client-ca-file=ca.pem',
        '--cert-dir=/tmp/certs',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
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
      featureGates: {
        AllowUnsafeMalformedObjectDeletion: true,
        APIResponseCompression: false,
        CBORServingAndStorage: true,
      },
      runtimeConfig: { 'api/all': 'true', 'apps/v1beta1': '' },
      livezGracePeriodMs: 30_000,
      dataDir: '/tmp/x',
      tlsCertFile: 'c.pem',
      tlsPrivateKeyFile: 'k.pem',
      clientCaFile: 'ca.pem',
      certDir: '/tmp/certs',
      serviceClusterIPRange: '10.0.0.0/24',
      allowPrivileged: true,
      // Each as written, in order, for /flagz.
      givenFlags: expect.arrayContaining([
        { name: 'secure-port', value: '7443' },
        { name: 'bind-address', value: '127.0.0.2' },
        { name: 'feature-gates', value: 'kube:CBORServingAndStorage=1' },
      ]),
    });
  });

  it('takes the --kubelet-* flags with the reference defaults', () => {
    expect(DEFAULT_OPTIONS.kubelet).toEqual({
      preferredAddressTypes: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'],
      timeoutMs: 5_000,
    });
    expect(
      options([
        '--kubelet-client-certificate=c.crt',
        '--kubelet-client-key',
        'c.key',
        '--kubelet-certificate-authority=ca.crt',
        '--kubelet-preferred-address-types=InternalIP, ExternalIP',
        '--kubelet-timeout=1m30s',
      ]).kubelet,
    ).toEqual({
      clientCertificate: 'c.crt',
      clientKey: 'c.key',
      certificateAuthority: 'ca.crt',
      preferredAddressTypes: ['InternalIP', 'ExternalIP'],
      timeoutMs: 90_000,
    });
  });

  it("takes the --coordinated-leadership-* timers, which default to the reference's", () => {
    expect(DEFAULT_OPTIONS.coordinatedLeadership).toEqual({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(
      options([
        '--coordinated-leadership-lease-duration=1m',
        '--coordinated-leadership-renew-deadline=30s',
        '--coordinated-leadership-retry-period=500ms',
      ]).coordinatedLeadership,
    ).toEqual({ leaseDurationMs: 60_000, renewDeadlineMs: 30_000, retryPeriodMs: 500 });
  });

  it.each([
    // The reference's checks of the coordinated leadership timers, asked of kube-apiserver 1.34.4.
    [
      ['--coordinated-leadership-lease-duration=5s'],
      '--coordinated-leadership-lease-duration must be greater than --coordinated-leadership-renew-deadline',
    ],
    [
      ['--coordinated-leadership-lease-duration=1s', '--coordinated-leadership-renew-deadline=1s'],
      '[--coordinated-leadership-lease-duration must be greater than --coordinated-leadership-renew-deadline, --coordinated-leadership-renew-deadline must be greater than --coordinated-leadership-retry-period]',
    ],
    [
      ['--coordinated-leadership-retry-period=xyz'],
      'invalid argument "xyz" for "--coordinated-leadership-retry-period" flag: time: invalid duration "xyz"',
    ],
    [['--kubelet-timeout=5'], 'invalid argument "5" for "--kubelet-timeout" flag: time: missing unit in duration "5"'],
    [['--no-such-flag=1'], 'unknown flag: --no-such-flag'],
    [['--secure-port'], 'flag needs an argument: --secure-port'],
    [['--secure-port=http'], 'invalid argument "http" for "--secure-port" flag: not a port number'],
    [
      ['--etcd-compaction-interval=5'],
      'invalid argument "5" for "--etcd-compaction-interval" flag: time: missing unit in duration "5"',
    ],
    // The reference's texts, which name no flag: a value that is not a bool, a name it does not
    // know and a gate locked to its default; its lock refusals gathered up to an unknown name.
    [
      ['--feature-gates=AllAlpha=yes'],
      'invalid value of AllAlpha=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    ],
    [
      ['--feature-gates=AllAlpha=true=1'],
      'invalid value of AllAlpha=true=1, err: strconv.ParseBool: parsing "true=1": invalid syntax',
    ],
    [['--feature-gates=APIServerTracing'], 'missing bool value for APIServerTracing'],
    [['--feature-gates=NoSuchGate=true'], 'unrecognized feature gate: NoSuchGate'],
    [
      ['--feature-gates=StructuredAuthorizationConfiguration=false'],
      'cannot set feature gate StructuredAuthorizationConfiguration to false, feature is locked to true',
    ],
    [
      ['--feature-gates=AllowServiceLBStatusOnNonLB=true'],
      'cannot set feature gate AllowServiceLBStatusOnNonLB to true, feature is locked to false',
    ],
    [
      ['--feature-gates=BtreeWatchCache=false', '--feature-gates=kube:APIServerTracing=false'],
      '[cannot set feature gate APIServerTracing to false, feature is locked to true, cannot set feature gate BtreeWatchCache to false, feature is locked to true]',
    ],
    [
      ['--feature-gates=APIServerTracing=false,ZZZ=true,ZZZ2=true'],
      '[cannot set feature gate APIServerTracing to false, feature is locked to true, unrecognized feature gate: ZZZ]',
    ],
    [['--feature-gates=AAA=true,APIServerTracing=false'], 'unrecognized feature gate: AAA'],
    [['serve'], '"capstan" does not take any arguments, got ["serve"]'],
    [['--cert-dir='], 'invalid argument "" for "--cert-dir" flag: must name a directory'],
  ])('%j fails: %s', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(new FlagError(message));
  });

  it('answers --help with the flag list', () => {
    const result = parseFlags(['--help']);
    expect('help' in result && result.help).toContain('--etcd-servers');
  });
});

describe('the flags of a kubeadm control plane: etcd TLS, overrides, service range, advertise address', () => {
  it('takes them as the reference does', () => {
    expect(
      options([
        '--etcd-servers=https://127.0.0.1:2379',
        '--etcd-cafile=/etc/kubernetes/pki/etcd/ca.crt',
        '--etcd-certfile=/etc/kubernetes/pki/apiserver-etcd-client.crt',
        '--etcd-keyfile=/etc/kubernetes/pki/apiserver-etcd-client.key',
        '--etcd-servers-overrides=/pods#http://etcd4:2379;http://etcd5:2379,/events#http://etcd6:2379',
        '--etcd-servers-overrides',
        'apps/deployments#http://etcd7:2379',
        '--service-cluster-ip-range=10.96.0.0/12,fd00:10:96::/112',
        '--advertise-address= 192.168.1.10',
      ]),
    ).toMatchObject({
      etcdCaFile: '/etc/kubernetes/pki/etcd/ca.crt',
      etcdCertFile: '/etc/kubernetes/pki/apiserver-etcd-client.crt',
      etcdKeyFile: '/etc/kubernetes/pki/apiserver-etcd-client.key',
      etcdServersOverrides: [
        { group: '', resource: 'pods', servers: ['http://etcd4:2379', 'http://etcd5:2379'] },
        { group: '', resource: 'events', servers: ['http://etcd6:2379'] },
        { group: 'apps', resource: 'deployments', servers: ['http://etcd7:2379'] },
      ],
      serviceClusterIPRange: '10.96.0.0/12,fd00:10:96::/112',
      advertiseAddress: '192.168.1.10',
    });
    expect(options(['--advertise-address=FD00:0:0::2']).advertiseAddress).toBe('fd00::2');
  });

  const OVERRIDES_INVALID =
    '--etcd-servers-overrides invalid, must be of format: group/resource#servers, where servers are URLs, semicolon separated';
  it.each([
    // The reference's texts (v1.34.4 asked with each value).
    [['--etcd-servers=http://e:2379', '--etcd-servers-overrides=events#http://x'], OVERRIDES_INVALID],
    [['--etcd-servers=http://e:2379', '--etcd-servers-overrides=/events'], OVERRIDES_INVALID],
    [['--etcd-servers=http://e:2379', '--etcd-servers-overrides=/events#'], OVERRIDES_INVALID],
    [['--etcd-servers=http://e:2379', '--etcd-servers-overrides=/events#a;;b'], OVERRIDES_INVALID],
    [['--etcd-servers=http://e:2379', '--etcd-servers-overrides=a/b/c#x'], OVERRIDES_INVALID],
    [['--etcd-servers=http://e:2379', '--etcd-servers-overrides=/events#http://x,pods#y'], OVERRIDES_INVALID],
    [
      ['--etcd-servers-overrides=/events#http://x'],
      '--etcd-servers-overrides needs --etcd-servers (the embedded store keeps every resource)',
    ],
    [
      ['--etcd-certfile=c.crt'],
      'KeyFile and CertFile must both be present[key: , cert: c.crt] (--etcd-keyfile, --etcd-certfile)',
    ],
    [
      ['--etcd-keyfile=c.key'],
      'KeyFile and CertFile must both be present[key: c.key, cert: ] (--etcd-keyfile, --etcd-certfile)',
    ],
    [['--advertise-address=x'], 'invalid argument "x" for "--advertise-address" flag: failed to parse IP: "x"'],
    [
      ['--service-cluster-ip-range=10.96.0.0/12,10.97.0.0/16'],
      '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family',
    ],
    // The size limit holds while the old allocator is still written, a gate given after the range.
    [
      ['--service-cluster-ip-range=10.0.0.0/8', '--feature-gates=DisableAllocatorDualWrite=false'],
      'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12',
    ],
  ])('%j fails: %s', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(new FlagError(message));
  });

  it('takes a /8 while the old allocator is off (1.34 default)', () => {
    expect(options(['--service-cluster-ip-range=10.0.0.0/8']).serviceClusterIPRange).toBe('10.0.0.0/8');
  });
});
