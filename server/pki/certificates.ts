/**
 * Issues the certificates capstan needs when the operator brings none: a CA, a serving
 * certificate and client certificates, all ECDSA P-256 (fast to make; Go clients and kubectl
 * accept them). `@peculiar/x509` (server/x509-library.ts) is loaded only when something must be issued,
 * so that an ordinary start, which reuses the files, does not pay for loading it.
 */
import { webcrypto } from 'node:crypto';
import { loadX509, type X509Module } from '../x509-library';

export interface IssuedCertificate {
  readonly certPem: string;
  /** PKCS#8 PEM. */
  readonly keyPem: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600 * 1000;
/** Tolerates clocks a little behind ours. */
const BACKDATE_MS = 5 * 60 * 1000;

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

function randomSerial(): string {
  // Positive 16-byte serial: clear the top bit.
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  return Buffer.from(bytes).toString('hex');
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + days * DAY_MS) };
}

export async function issueCa(options: { commonName: string; validDays: number }): Promise<IssuedCertificate> {
  const x509 = loadX509();
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${options.commonName}`,
    ...validity(options.validDays),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await keyPem(keys.privateKey) };
}

export interface LeafRequest {
  readonly ca: IssuedCertificate;
  /** e.g. `CN=kubernetes-admin, O=system:masters` */
  readonly subject: string;
  readonly usage: 'server' | 'client';
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly validDays: number;
}

export async function issueLeaf(request: LeafRequest): Promise<IssuedCertificate> {
  const x509 = loadX509();
  const caCert = new x509.X509Certificate(request.ca.certPem);
  const caKey = await importKey(request.ca.keyPem);
  const keys = await generateKeys();
  const extensions: InstanceType<X509Module['Extension']>[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension(
      [request.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth],
      false,
    ),
    await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
  ];
  const alternativeNames = [
    ...(request.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(request.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (alternativeNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(alternativeNames, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: request.subject,
    issuer: caCert.subject,
    ...validity(request.validDays),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: caKey,
    extensions,
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await keyPem(keys.privateKey) };
}

async function importKey(pem: string): Promise<webcrypto.CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, ALGORITHM, false, ['sign']);
}
