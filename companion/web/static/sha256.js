// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in plain JavaScript, synchronous, for
// verify.js where the browser gives no crypto.subtle: a phone opening the table's page
// over plain http (WebCrypto is for https and localhost only).
//
//   sha256(bytes: Uint8Array): Uint8Array (32 bytes)
//   hmacSha256(key: Uint8Array, msg: Uint8Array): Uint8Array (32 bytes)

// FIPS 180-4, 4.2.2: the first 32 bits of the fractional parts of the cube roots of the
// first 64 primes.
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// 5.3.3: the initial hash value, from the square roots of the first 8 primes.
const H0 = Int32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const W = new Int32Array(64); // the message schedule, shared: every call is synchronous

// 6.2.2: one 64-byte block of m, from index at, into the state H. Words are int32 (a
// sum is taken mod 2**32 by `| 0`); ROTR(x, n) is (x >>> n) | (x << (32 - n)).
function block(H, m, at) {
  for (let t = 0; t < 16; t++, at += 4) {
    W[t] = (m[at] << 24) | (m[at + 1] << 16) | (m[at + 2] << 8) | m[at + 3];
  }
  for (let t = 16; t < 64; t++) {
    const x = W[t - 15];
    const y = W[t - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[t] = (s1 + W[t - 7] + s0 + W[t - 16]) | 0;
  }
  let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const T1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const T2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + T1) | 0;
    d = c;
    c = b;
    b = a;
    a = (T1 + T2) | 0;
  }
  H[0] = (H[0] + a) | 0;
  H[1] = (H[1] + b) | 0;
  H[2] = (H[2] + c) | 0;
  H[3] = (H[3] + d) | 0;
  H[4] = (H[4] + e) | 0;
  H[5] = (H[5] + f) | 0;
  H[6] = (H[6] + g) | 0;
  H[7] = (H[7] + h) | 0;
}

export function sha256(bytes) {
  const H = new Int32Array(H0);
  const n = bytes.length;
  const whole = n - (n % 64);
  for (let at = 0; at < whole; at += 64) block(H, bytes, at);
  // 5.1.1: the rest, the bit 1, zeros, the length in bits as 64 bits big-endian
  const tail = new Uint8Array(n % 64 < 56 ? 64 : 128);
  tail.set(bytes.subarray(whole));
  tail[n % 64] = 0x80;
  const end = tail.length;
  const view = new DataView(tail.buffer);
  view.setUint32(end - 8, Math.floor(n / 2 ** 29)); // n * 8 (exact below 2**53) / 2**32
  view.setUint32(end - 4, (n * 8) >>> 0);
  for (let at = 0; at < end; at += 64) block(H, tail, at);
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = H[i >> 2] >>> (24 - 8 * (i & 3));
  return out;
}

// RFC 2104: H((K ^ opad) || H((K ^ ipad) || msg)), a key longer than the 64-byte block
// hashed first, a shorter one padded with zeros.
export function hmacSha256(key, msg) {
  const k = new Uint8Array(64);
  k.set(key.length > 64 ? sha256(key) : key);
  const inner = new Uint8Array(64 + msg.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = k[i] ^ 0x36;
    outer[i] = k[i] ^ 0x5c;
  }
  inner.set(msg, 64);
  outer.set(sha256(inner), 64);
  return sha256(outer);
}
