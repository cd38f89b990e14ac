/**
 * The deployment files, checked without Docker: the compose file parses and wires three etcd
 * members, three replicas, haproxy and Prometheus together; haproxy accepts its configuration;
 * the dashboard only queries metrics the server exports; the certificate script's output lets
 * a real server process and kubectl talk, /metrics included; and the chart lints and renders
 * with helm (which tools/deps.sh builds).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { createApiserverMetrics } from '../../server/metrics/apiserver-metrics';
import { ensureBuilt, startCapstan, waitForExit } from '../helpers/capstan-process';

const ROOT = join(__dirname, '..', '..');
const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
}

function compose(): { services: Record<string, ComposeService>; volumes: Record<string, unknown> } {
  return parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
}

describe('docker-compose.yml', () => {
  it('runs three etcd members, three replicas on all of them, haproxy and Prometheus, with certificates from a one-shot service', () => {
    const { services, volumes } = compose();
    const etcd = ['etcd1', 'etcd2', 'etcd3'];
    const replicas = ['replica1', 'replica2', 'replica3'];
    for (const name of etcd) {
      const env = services[name].environment ?? {};
      expect(env.ETCD_NAME).toBe(name);
      expect(env.ETCD_INITIAL_CLUSTER).toBe(etcd.map((member) => `${member}=http://${member}:2380`).join(','));
    }
    for (const name of replicas) {
      const replica = services[name];
      expect(replica.build).toEqual({ context: '.', dockerfile: 'deploy/Dockerfile' });
      expect(replica.command).toContain(`--etcd-servers=${etcd.map((member) => `http://${member}:2379`).join(',')}`);
      expect(replica.command).toEqual(
        expect.arrayContaining([
          '--tls-cert-file=/pki/serving.crt',
          '--client-ca-file=/pki/ca.crt',
          '--service-account-signing-key-file=/pki/sa.key',
        ]),
      );
      expect(replica.depends_on).toMatchObject({ pki: { condition: 'service_completed_successfully' } });
      expect(replica.volumes).toContain('pki:/pki:ro');
    }
    expect(services.haproxy.ports).toEqual(['6443:6443']);
    expect(services.prometheus.volumes).toContain('pki:/pki:ro');
    expect(Object.keys(volumes)).toEqual(expect.arrayContaining(['pki', ...etcd]));
    for (const service of Object.values(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0];
        if (source.startsWith('./')) expect(existsSync(join(ROOT, source))).toBe(true);
      }
    }
    expect(existsSync(join(ROOT, 'deploy', 'Dockerfile'))).toBe(true);
  });

  it('runs the reference controller manager, scheduler and kwok, from their upstream images, only with the "controllers" profile', () => {
    const { services } = compose() as { services: Record<string, ComposeService & { profiles?: string[] }> };
    expect(services['kube-controller-manager'].image).toBe('registry.k8s.io/kube-controller-manager:v1.34.4');
    expect(services['kube-scheduler'].image).toBe('registry.k8s.io/kube-scheduler:v1.34.4');
    expect(services.kwok.image).toBe('registry.k8s.io/kwok/kwok:v0.8.0');
    for (const name of ['kube-controller-manager', 'kube-scheduler', 'kwok-stages', 'kwok'])
      expect(services[name].profiles).toEqual(['controllers']);
    expect(services['kube-controller-manager'].command).toEqual(
      expect.arrayContaining([
        '--kubeconfig=/pki/controller-manager.kubeconfig',
        '--use-service-account-credentials=true',
        '--service-account-private-key-file=/pki/sa.key',
      ]),
    );
    expect(services.kwok.command).toEqual(
      expect.arrayContaining([
        '--kubeconfig=/pki/kwok.kubeconfig',
        '--config=/kwok/stages.yaml',
        '--manage-all-nodes=true',
      ]),
    );
    // The replicas leave their own copies of those controllers off when asked (CAPSTAN_CONTROLLERS=).
    expect(services.replica1.command).toContain('--controllers=${CAPSTAN_CONTROLLERS-*}');
  });

  it('has Prometheus scrape every replica with a client certificate', () => {
    const config = parse(readFileSync(join(ROOT, 'deploy', 'prometheus', 'prometheus.yml'), 'utf8'));
    const [job] = config.scrape_configs;
    expect(job).toMatchObject({
      scheme: 'https',
      metrics_path: '/metrics',
      tls_config: { cert_file: '/pki/prometheus.crt', key_file: '/pki/prometheus.key' },
    });
    expect(job.static_configs[0].targets).toEqual(['replica1:6443', 'replica2:6443', 'replica3:6443']);
  });

  it('has an haproxy configuration haproxy accepts: TCP passthrough to every replica, checked on /readyz', () => {
    const config = readFileSync(join(ROOT, 'deploy', 'haproxy', 'haproxy.cfg'), 'utf8');
    expect(config).toMatch(/mode tcp/);
    expect(config).toMatch(/option httpchk GET \/readyz/);
    expect(config.match(/^\s*server replica\d replica\d:6443$/gm)).toHaveLength(3);
    // Compose's service names do not resolve here: check the same file with loopback addresses.
    const dir = mkdtempSync(join(tmpdir(), 'capstan-haproxy-'));
    try {
      const local = join(dir, 'haproxy.cfg');
      writeFileSync(
        local,
        config.replace(/replica(\d):6443/g, '127.0.0.1:1644$1').replace('log stdout format raw local0', ''),
      );
      const check = spawnSync('haproxy', ['-c', '-f', local], { encoding: 'utf8' });
      expect(check.stdout + check.stderr).toMatch(/Configuration file is valid/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the Grafana dashboard', () => {
  it('queries only metrics the server exports', async () => {
    const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy', 'grafana', 'capstan-dashboard.json'), 'utf8'));
    const exported = new Set((await createApiserverMetrics().registry.getMetricsAsJSON()).map((metric) => metric.name));
    const queried = new Set<string>();
    for (const panel of dashboard.panels) {
      for (const target of panel.targets) {
        for (const [name] of target.expr.matchAll(/\b(?:apiserver|etcd|capstan|process)_[a-z_]+/g))
          queried.add(name.replace(/_(bucket|count|sum)$/, ''));
      }
    }
    expect(queried.size).toBeGreaterThan(10);
    expect([...queried].filter((name) => !exported.has(name))).toEqual([]);
  });
});

describe('the certificates of deploy/pki/make-certs.sh', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'capstan-pki-'));
    execFileSync('sh', [join(ROOT, 'deploy', 'pki', 'make-certs.sh'), join(dir, 'pki')], { stdio: 'pipe' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serve a replica that kubectl reaches with the admin kubeconfig, Prometheus with its certificate, and the controllers with theirs', async () => {
    const pki = join(dir, 'pki');
    const server = await startCapstan([
      '--secure-port=0',
      `--data-dir=${join(dir, 'data')}`,
      `--tls-cert-file=${join(pki, 'serving.crt')}`,
      `--tls-private-key-file=${join(pki, 'serving.key')}`,
      `--client-ca-file=${join(pki, 'ca.crt')}`,
      `--service-account-signing-key-file=${join(pki, 'sa.key')}`,
    ]);
    try {
      const kubeconfig = join(dir, 'admin.kubeconfig');
      writeFileSync(
        kubeconfig,
        readFileSync(join(pki, 'admin.kubeconfig'), 'utf8').replace(
          'https://localhost:6443',
          server.url.replace('127.0.0.1', 'localhost'),
        ),
      );
      const metrics = execFileSync(KUBECTL, ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'], {
        encoding: 'utf8',
      });
      expect(metrics).toContain('# TYPE apiserver_request_total counter');
      const prometheus = spawnSync(
        'curl',
        [
          '-sf',
          '--cacert',
          join(pki, 'ca.crt'),
          '--cert',
          join(pki, 'prometheus.crt'),
          '--key',
          join(pki, 'prometheus.key'),
          `${server.url.replace('127.0.0.1', 'localhost')}/metrics`,
        ],
        { encoding: 'utf8' },
      );
      expect(prometheus.stdout).toContain('apiserver_current_inflight_requests');
      // The controllers' kubeconfigs (written for the compose network) log in as their own users.
      for (const [file, user] of [
        ['controller-manager.kubeconfig', 'system:kube-controller-manager'],
        ['scheduler.kubeconfig', 'system:kube-scheduler'],
        ['kwok.kubeconfig', 'kubernetes-admin'],
      ]) {
        const local = join(dir, file);
        writeFileSync(
          local,
          readFileSync(join(pki, file), 'utf8').replace(
            'https://haproxy:6443',
            server.url.replace('127.0.0.1', 'localhost'),
          ),
        );
        expect(
          execFileSync(
            KUBECTL,
            ['--kubeconfig', local, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'],
            { encoding: 'utf8' },
          ),
        ).toBe(user);
      }
    } finally {
      server.process.kill('SIGTERM');
      await waitForExit(server);
    }
  });
});

const HELM_CANDIDATES = ['/usr/local/bin/helm', '/usr/bin/helm'];
const HELM = HELM_CANDIDATES.find((path) => existsSync(path));
const CHART = join(ROOT, 'deploy', 'helm', 'capstan');
// helm is built from its Go module by tools/deps.sh (`make test` runs it first): no skipping.
describe('the Helm chart', () => {
  it('has helm to check it with', () => {
    expect({ helm: HELM ?? `none of ${HELM_CANDIDATES.join(', ')}: run tools/deps.sh` }).toEqual({
      helm: expect.stringMatching(/helm$/),
    });
  });

  it('lints', () => {
    const lint = spawnSync(
      HELM!,
      ['lint', CHART, '--set', 'serviceMonitor.enabled=true,serviceMonitor.clientCertSecret=prom'],
      { encoding: 'utf8' },
    );
    expect(lint.stdout + lint.stderr).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders a Deployment with probes, a Service, a PodDisruptionBudget, the certificate Secret and an optional ServiceMonitor', () => {
    const rendered = execFileSync(
      HELM!,
      [
        'template',
        'cp',
        CHART,
        '--namespace',
        'capstan',
        '--set',
        'serviceMonitor.enabled=true,serviceMonitor.clientCertSecret=prom',
      ],
      {
        encoding: 'utf8',
      },
    );
    const objects = parseAllDocuments(rendered)
      .map((document) => document.toJSON())
      .filter(Boolean);
    expect(objects.map((object) => object.kind).sort()).toEqual([
      'Deployment',
      'PodDisruptionBudget',
      'Secret',
      'Service',
      'ServiceMonitor',
    ]);
    const deployment = objects.find((object) => object.kind === 'Deployment');
    const [container] = deployment.spec.template.spec.containers;
    expect(deployment.spec.replicas).toBe(3);
    expect(container.livenessProbe.httpGet.path).toBe('/livez');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.args).toContain(
      '--etcd-servers=http://etcd-0.etcd:2379,http://etcd-1.etcd:2379,http://etcd-2.etcd:2379',
    );
    const secret = objects.find((object) => object.kind === 'Secret');
    expect(Object.keys(secret.data).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
    const withoutMonitor = execFileSync(HELM!, ['template', 'cp', CHART], { encoding: 'utf8' });
    expect(withoutMonitor).not.toContain('ServiceMonitor');
  });
});
