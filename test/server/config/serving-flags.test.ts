/**
 * The serving flags of kube-apiserver 1.34 that capstan implements here, parsed: syntax,
 * defaults and the reference's messages (each taken from kube-apiserver v1.34.4 given the same
 * value). What each flag does is tested in serving-flags-server.test.ts.
 */
import { DEFAULT_OPTIONS, FlagError, parseFlags } from '../../../server/config/flags';
import { insecureCipherSuites } from '../../../server/config/tls-flags';
import { parseWatchCacheSize, watchCacheDisabled } from '../../../server/config/watch-cache-sizes';
import { defaultWatchTimeoutSeconds } from '../../../server/handlers/watch';
import { metricShown } from '../../../server/metrics/hidden-metrics';
import { servingTlsSettings } from '../../../server/pki/serving-tls';

function options(argv: string[]) {
  const result = parseFlags(argv);
  if (!('options' in result)) throw new Error('expected options');
  return result.options;
}

describe('serving flags', () => {
  it('have the reference defaults', () => {
    expect(DEFAULT_OPTIONS).toMatchObject({
      allowPrivileged: false,
      tlsCipherSuites: [],
      tlsSniCertKeys: [],
      minRequestTimeoutSeconds: 1800,
      goawayChance: 0,
      watchCacheSizes: {},
      profiling: true,
    });
    expect(DEFAULT_OPTIONS.tlsMinVersion).toBeUndefined();
    expect(DEFAULT_OPTIONS.showHiddenMetricsForVersion).toBeUndefined();
  });

  it('parse what the reference takes', () => {
    expect(
      options([
        '--allow-privileged',
        '--tls-min-version=VersionTLS13',
        '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_128_CBC_SHA',
        '--tls-cipher-suites',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
        '--tls-sni-cert-key=a.crt,a.key',
        '--tls-sni-cert-key',
        ' b.crt , b.key : *.b.example, b.example ',
        '--min-request-timeout=0',
        '--goaway-chance=0.02',
        '--watch-cache-sizes=pods#0,deployments.apps#100',
        '--watch-cache-sizes=events#5,foo.bar.example.com#0',
        '--profiling=false',
        '--contention-profiling=false',
        '--show-hidden-metrics-for-version=1.33',
      ]),
    ).toEqual({
      ...DEFAULT_OPTIONS,
      allowPrivileged: true,
      tlsMinVersion: 'VersionTLS13',
      tlsCipherSuites: [
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'TLS_RSA_WITH_AES_128_CBC_SHA',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
      ],
      tlsSniCertKeys: [
        { certFile: 'a.crt', keyFile: 'a.key', names: [] },
        { certFile: 'b.crt', keyFile: 'b.key', names: ['*.b.example', 'b.example'] },
      ],
      minRequestTimeoutSeconds: 0,
      goawayChance: 0.02,
      watchCacheSizes: { pods: 0, 'deployments.apps': 100, events: 5, 'foo.bar.example.com': 0 },
      profiling: false,
      showHiddenMetricsForVersion: '1.33',
      givenFlags: expect.arrayContaining([
        { name: 'tls-cipher-suites', value: 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305' },
      ]),
    });
  });

  it.each([
    [
      ['--goaway-chance=0.5'],
      'invalid argument "0.5" for "--goaway-chance" flag: --goaway-chance can not be less than 0 or greater than 0.02',
    ],
    [
      ['--goaway-chance=-0.01'],
      'invalid argument "-0.01" for "--goaway-chance" flag: --goaway-chance can not be less than 0 or greater than 0.02',
    ],
    [
      ['--min-request-timeout=-1'],
      'invalid argument "-1" for "--min-request-timeout" flag: --min-request-timeout can not be negative value',
    ],
    [
      ['--min-request-timeout=x'],
      'invalid argument "x" for "--min-request-timeout" flag: strconv.ParseInt: parsing "x": invalid syntax',
    ],
    [
      ['--show-hidden-metrics-for-version=1.32'],
      `invalid argument "1.32" for "--show-hidden-metrics-for-version" flag: --show-hidden-metrics-for-version must be omitted or have the value '1.33'. Only the previous minor version is allowed`,
    ],
    [['--tls-min-version=foo'], 'invalid argument "foo" for "--tls-min-version" flag: unknown tls version "foo"'],
    [
      ['--tls-cipher-suites=FOO'],
      `invalid argument "FOO" for "--tls-cipher-suites" flag: Cipher suite FOO not supported or doesn't exist`,
    ],
    [
      ['--tls-sni-cert-key=a'],
      'invalid argument "a" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths',
    ],
    [
      ['--tls-sni-cert-key=a,b:'],
      'invalid argument "a,b:" for "--tls-sni-cert-key" flag: empty names list is not allowed',
    ],
    [
      ['--watch-cache-sizes=pods'],
      'invalid argument "pods" for "--watch-cache-sizes" flag: invalid value of watch cache size: pods',
    ],
    [
      ['--watch-cache-sizes=pods#x'],
      'invalid argument "pods#x" for "--watch-cache-sizes" flag: invalid size of watch cache size: pods#x',
    ],
    [
      ['--watch-cache-sizes=pods#-1'],
      'invalid argument "pods#-1" for "--watch-cache-sizes" flag: watch cache size cannot be negative: pods#-1',
    ],
    [
      ['--contention-profiling=maybe'],
      'invalid argument "maybe" for "--contention-profiling" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
    ],
    [
      ['--contention-profiling'],
      'invalid argument "true" for "--contention-profiling" flag: capstan has no block profile to serve (Node.js measures no lock contention): only false is supported',
    ],
  ])('%j fails: %s', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(new FlagError(message));
  });
});

describe('--watch-cache-sizes', () => {
  it('reads resource[.group] as the reference parses a group-resource, at the first dot', () => {
    expect(parseWatchCacheSize('pods#0')).toEqual(['pods', 0]);
    expect(parseWatchCacheSize('pods.#0')).toEqual(['pods', 0]);
    expect(parseWatchCacheSize('deployments.apps#+3')).toEqual(['deployments.apps', 3]);
  });

  it('leaves events of both groups uncached unless a size asks for a cache, and only 0 disables', () => {
    expect(watchCacheDisabled({}, '', 'events')).toBe(true);
    expect(watchCacheDisabled({}, 'events.k8s.io', 'events')).toBe(true);
    expect(watchCacheDisabled({ events: 100 }, '', 'events')).toBe(false);
    expect(watchCacheDisabled({ events: 100 }, 'events.k8s.io', 'events')).toBe(true);
    expect(watchCacheDisabled({}, '', 'pods')).toBe(false);
    expect(watchCacheDisabled({ pods: 7 }, '', 'pods')).toBe(false);
    expect(watchCacheDisabled({ pods: 0 }, '', 'pods')).toBe(true);
    expect(watchCacheDisabled({ pods: 0 }, 'example.com', 'pods')).toBe(false);
  });
});

describe('--min-request-timeout', () => {
  it('gives watches without timeoutSeconds a random time in [min, 2·min), or none at 0', () => {
    for (let i = 0; i < 200; i++) {
      const seconds = defaultWatchTimeoutSeconds(10)!;
      expect(seconds).toBeGreaterThanOrEqual(10);
      expect(seconds).toBeLessThan(20);
    }
    const defaults = defaultWatchTimeoutSeconds()!;
    expect(defaults).toBeGreaterThanOrEqual(1800);
    expect(defaults).toBeLessThan(3600);
    expect(defaultWatchTimeoutSeconds(0)).toBeUndefined();
  });
});

describe('--show-hidden-metrics-for-version', () => {
  it('hides metrics deprecated before 1.34 unless asked', () => {
    expect(metricShown('1.33.0', false)).toBe(false);
    expect(metricShown('1.30.0', false)).toBe(false);
    expect(metricShown('1.34.0', false)).toBe(true);
    expect(metricShown('1.30.0', true)).toBe(true);
  });
});

describe('TLS settings', () => {
  it("maps Go names to OpenSSL in Go's order, keeps TLS 1.3 as it is, and lowers the security level for TLS 1.0 and 1.1", () => {
    const goDefaults =
      'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:' +
      'ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA';
    expect(servingTlsSettings({ tlsCipherSuites: [] })).toEqual({
      minVersion: 'TLSv1.2',
      ciphers: goDefaults,
      honorCipherOrder: true,
    });
    expect(servingTlsSettings({ tlsMinVersion: 'VersionTLS13', tlsCipherSuites: [] })).toEqual({
      minVersion: 'TLSv1.3',
      ciphers: goDefaults,
      honorCipherOrder: true,
    });
    expect(servingTlsSettings({ tlsMinVersion: 'VersionTLS10', tlsCipherSuites: [] })).toEqual({
      minVersion: 'TLSv1',
      ciphers: `${goDefaults}@SECLEVEL=0`,
      honorCipherOrder: true,
    });
    expect(
      servingTlsSettings({
        tlsCipherSuites: [
          'TLS_AES_128_GCM_SHA256',
          'TLS_RSA_WITH_AES_128_CBC_SHA',
          'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
          'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        ],
      }),
    ).toEqual({
      minVersion: 'TLSv1.2',
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305:AES128-SHA',
      honorCipherOrder: true,
    });
    expect(
      servingTlsSettings({
        tlsMinVersion: 'VersionTLS11',
        tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
      }),
    ).toEqual({
      minVersion: 'TLSv1.1',
      ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256@SECLEVEL=0',
      honorCipherOrder: true,
    });
  });

  it("refuses lists Go's HTTP/2 server refuses, unless only TLS 1.3 is served", () => {
    const message =
      'error configuring http2: http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)';
    expect(() => servingTlsSettings({ tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'] })).toThrow(
      new FlagError(message),
    );
    expect(() => servingTlsSettings({ tlsCipherSuites: ['TLS_AES_128_GCM_SHA256'] })).toThrow(new FlagError(message));
    expect(
      servingTlsSettings({ tlsMinVersion: 'VersionTLS13', tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'] }),
    ).toEqual({
      minVersion: 'TLSv1.3',
      ciphers: 'ECDHE-RSA-AES256-GCM-SHA384',
      honorCipherOrder: true,
    });
  });

  it('names the insecure suites, which the reference warns about', () => {
    expect(
      insecureCipherSuites([
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'TLS_RSA_WITH_AES_128_CBC_SHA',
        'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
      ]),
    ).toEqual(['TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256']);
  });

  it('says so when OpenSSL has no such suite (RC4, 3DES)', () => {
    expect(() =>
      servingTlsSettings({ tlsCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_RC4_128_SHA'] }),
    ).toThrow(
      new FlagError(
        "--tls-cipher-suites: TLS_RSA_WITH_RC4_128_SHA (OpenSSL RC4-SHA) is not available in this server's TLS library",
      ),
    );
  });
});
