// The API server's TLS identity: a CA and a serving certificate for 127.0.0.1 signed by it.
// kubectl sends bearer tokens only over TLS, so even a loopback server needs one; the CA goes
// into the kubeconfig.
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as Crypto);

export interface TlsIdentity {
  /** PEM of the CA certificate, for the kubeconfig's certificate-authority-data. */
  caCertificate: string;
  certificate: string;
  privateKey: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').trim()}\n-----END PRIVATE KEY-----\n`;
}

export async function createTlsIdentity(): Promise<TlsIdentity> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + TEN_YEARS_MS);
  const caKeys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=exp local control plane CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const serverKeys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=exp-local-apiserver',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'ip', value: '127.0.0.1' },
        { type: 'dns', value: 'localhost' },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca, false),
    ],
  });
  return { caCertificate: ca.toString('pem'), certificate: server.toString('pem'), privateKey: await privateKeyPem(serverKeys.privateKey) };
}
