/**
 * The certificates a start needs: made in the certificate directory (`--cert-dir`, or
 * `<data-dir>/pki/`) on the first start and reused afterwards, unless the operator brings
 * their own with the reference's flags: `--tls-cert-file`, or a serving pair
 * `apiserver.crt`/`apiserver.key` put in `--cert-dir` (envtest writes its own there).
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { certDirOf } from '../config/file-locations';
import { issueCa, issueLeaf, type IssuedCertificate } from './certificates';

/** Certificates capstan made itself: its CA, an admin's client certificate, and the serving pair. */
export interface Pki {
  /** What the HTTPS server presents. */
  readonly serving: IssuedCertificate;
  /** PEM bundle that verifies client certificates: `--client-ca-file`, or the generated CA. */
  readonly clientCaPem: string;
  /** The generated CA: signs the serving certificate and the admin's. */
  readonly ca: IssuedCertificate;
  /** `CN=kubernetes-admin, O=system:masters`, signed by the generated CA. */
  readonly admin: IssuedCertificate;
}

/** What a start serves with: the operator's certificates as found, or capstan's own. */
export interface ServingPki {
  readonly serving: IssuedCertificate;
  /** Absent when the operator brought the serving pair and no `--client-ca-file`: no client certificates then. */
  readonly clientCaPem?: string;
  /** Present when capstan made the serving certificate, so its CA verifies it and an admin kubeconfig can be written. */
  readonly generated?: Pki;
}

export interface PkiOptions {
  readonly dataDir: string;
  readonly certDir?: string;
  readonly bindAddress: string;
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  readonly clientCaFile?: string;
  /** Where in-cluster clients reach this server: the `kubernetes` Service's IP and the advertise address. */
  readonly alternateIPs?: readonly string[];
}

/** The `kubernetes` Service's names, which the reference's generated certificate holds too. */
const SERVICE_NAMES = ['kubernetes.default.svc', 'kubernetes.default', 'kubernetes'];

const CA_VALID_DAYS = 3650;
const LEAF_VALID_DAYS = 365;
/** Renew leaf certificates this long before they expire. */
const RENEW_BEFORE_MS = 7 * 24 * 3600 * 1000;

/**
 * The operator's serving pair when there is one (`--tls-cert-file`, or a pair in `--cert-dir`
 * that capstan's CA did not sign), and then nothing is generated or written, as the reference
 * writes nothing then; otherwise capstan's own certificates.
 */
export async function servingPki(options: PkiOptions): Promise<ServingPki> {
  const clientCaPem = options.clientCaFile ? readFileSync(options.clientCaFile, 'utf8') : undefined;
  if (options.tlsCertFile || options.tlsPrivateKeyFile) {
    if (!options.tlsCertFile || !options.tlsPrivateKeyFile) {
      throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    }
    const serving = {
      certPem: readFileSync(options.tlsCertFile, 'utf8'),
      keyPem: readFileSync(options.tlsPrivateKeyFile, 'utf8'),
    };
    return { serving, clientCaPem };
  }
  const dir = certDirOf(options);
  const found = readPair(dir, 'apiserver');
  const ca = readPair(dir, 'ca');
  // A pair another CA signed was put there on purpose, and is served as found, as the reference
  // serves whatever pair it finds in --cert-dir; a pair of ours is renewed as it ages.
  if (found !== undefined && (ca === undefined || !issuedBy(found, ca))) return { serving: found, clientCaPem };
  const generated = await generatedPki(options);
  return { serving: generated.serving, clientCaPem: generated.clientCaPem, generated };
}

/** capstan's own CA, admin and serving certificates in the certificate directory: made on the first start, reused and renewed after. */
export async function generatedPki(options: PkiOptions): Promise<Pki> {
  const dir = certDirOf(options);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ca = await reuseOrIssue(
    dir,
    'ca',
    () => true,
    () => issueCa({ commonName: 'capstan-ca', validDays: CA_VALID_DAYS }),
  );
  const admin = await reuseOrIssue(dir, 'admin', isFresh, () =>
    issueLeaf({ ca, subject: 'CN=kubernetes-admin, O=system:masters', usage: 'client', validDays: LEAF_VALID_DAYS }),
  );
  const clientCaPem = options.clientCaFile ? readFileSync(options.clientCaFile, 'utf8') : ca.certPem;
  const addresses = [...new Set([...servingAddresses(options.bindAddress), ...(options.alternateIPs ?? [])])];
  const dnsNames = ['localhost', ...SERVICE_NAMES];
  const serving = await reuseOrIssue(
    dir,
    'apiserver',
    (cert) =>
      isFresh(cert) &&
      addresses.every((ip) => cert.checkIP(ip) !== undefined) &&
      dnsNames.every((name) => cert.checkHost(name) !== undefined),
    () =>
      issueLeaf({
        ca,
        subject: 'CN=capstan-apiserver',
        usage: 'server',
        dnsNames,
        ipAddresses: addresses,
        validDays: LEAF_VALID_DAYS,
      }),
  );
  return { serving, clientCaPem, ca, admin };
}

/** Loopback names plus the bind address when it is a concrete address. */
function servingAddresses(bindAddress: string): string[] {
  const addresses = ['127.0.0.1', '::1'];
  const unspecified = bindAddress === '0.0.0.0' || bindAddress === '::';
  if (isIP(bindAddress) !== 0 && !unspecified && !addresses.includes(bindAddress)) addresses.push(bindAddress);
  return addresses;
}

function isFresh(cert: X509Certificate): boolean {
  return Date.parse(cert.validTo) - RENEW_BEFORE_MS > Date.now();
}

async function reuseOrIssue(
  dir: string,
  name: string,
  stillGood: (cert: X509Certificate) => boolean,
  issue: () => Promise<IssuedCertificate>,
): Promise<IssuedCertificate> {
  const existing = readPair(dir, name);
  if (existing !== undefined && stillGood(new X509Certificate(existing.certPem))) return existing;
  const issued = await issue();
  // Key first, each written whole then renamed, so a crash never leaves a cert without its key.
  writeAtomically(join(dir, `${name}.key`), issued.keyPem, 0o600);
  writeAtomically(join(dir, `${name}.crt`), issued.certPem, 0o644);
  return issued;
}

/** `<name>.crt` and `<name>.key` of `dir`, when both are there. */
function readPair(dir: string, name: string): IssuedCertificate | undefined {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
  return { certPem: readFileSync(certPath, 'utf8'), keyPem: readFileSync(keyPath, 'utf8') };
}

/** True when `ca` signed the (first) certificate of `pair`. */
function issuedBy(pair: IssuedCertificate, ca: IssuedCertificate): boolean {
  const cert = new X509Certificate(pair.certPem);
  const issuer = new X509Certificate(ca.certPem);
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

function writeAtomically(path: string, content: string, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode });
  renameSync(temporary, path);
}
