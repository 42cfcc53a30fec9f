// @peculiar/x509, set up to make certificates with Node's WebCrypto: for the local cluster's PKI
// (workbench/pki.ts), the registry's signing certificate (registry/signing.ts) and databases' server
// certificates (self-signed.ts); each loads this only to make one.
// The library resolves its ASN.1 codecs through tsyringe, which needs the reflect polyfill first.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// Node's WebCrypto is the object the library wants; its type and the DOM's Crypto are declared apart.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };
