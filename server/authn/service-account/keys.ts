/**
 * Service-account keys from PEM files: each file may hold several keys, RSA or ECDSA, public or
 * private (or certificates, whose public key counts), as the reference's
 * `--service-account-key-file` takes them. A key's id is the reference's: the unpadded
 * base64url SHA-256 of its DER SubjectPublicKeyInfo, so tokens and JWKS match other servers'.
 */
import { createHash, createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

export interface VerifyingKey {
  readonly kid: string;
  readonly alg: string;
  readonly key: KeyObject;
}

export interface SigningKey extends VerifyingKey {
  readonly privateKey: KeyObject;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/** The JWS algorithm the reference signs with for this key. */
export function algorithmOf(publicKey: KeyObject): string {
  if (publicKey.asymmetricKeyType === 'rsa') return 'RS256';
  if (publicKey.asymmetricKeyType === 'ec') {
    const curve = publicKey.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error(`unsupported elliptic curve ${String(curve)}`);
  }
  throw new Error(
    `unsupported key type ${String(publicKey.asymmetricKeyType)}: only RSA and ECDSA keys sign service-account tokens`,
  );
}

function verifying(key: KeyObject): VerifyingKey {
  return { kid: keyIdOf(key), alg: algorithmOf(key), key };
}

/** Every public key in a PEM text; throws when there is none. */
export function parsePublicKeys(pem: string, source: string): VerifyingKey[] {
  const keys: VerifyingKey[] = [];
  for (const match of pem.matchAll(PEM_BLOCK)) {
    const [block, label] = match;
    if (label === 'CERTIFICATE') keys.push(verifying(new X509Certificate(block).publicKey));
    else if (label.endsWith('PUBLIC KEY') || label.endsWith('PRIVATE KEY'))
      keys.push(verifying(createPublicKey(block)));
  }
  if (keys.length === 0) throw new Error(`data does not contain any valid RSA or ECDSA public keys: ${source}`);
  return keys;
}

/** The one private key of a signing-key file. */
export function parseSigningKey(pem: string, source: string): SigningKey {
  const block = [...pem.matchAll(PEM_BLOCK)].find((match) => match[1].endsWith('PRIVATE KEY'));
  if (block === undefined) throw new Error(`failed to parse service-account signing key ${source}: no private key`);
  const privateKey = createPrivateKey(block[0]);
  return { ...verifying(createPublicKey(privateKey)), privateKey };
}

/** The JWKS entry of a key, as `/openid/v1/jwks` serves it. */
export function jwkOf(key: VerifyingKey): Record<string, string> {
  const jwk = key.key.export({ format: 'jwk' }) as Record<string, string>;
  return {
    use: 'sig',
    kty: jwk.kty,
    kid: key.kid,
    alg: key.alg,
    ...(jwk.kty === 'RSA' ? { n: jwk.n, e: jwk.e } : { crv: jwk.crv, x: jwk.x, y: jwk.y }),
  };
}
