package nl2fix.runner;

/**
 * SipHash-2-4 (Aumasson and Bernstein), the MAC on the runner's signed report lines.
 *
 * <p>The 128-bit key is passed as two {@code long}s and the whole state lives in local
 * variables: the key of a job never becomes a heap object, so no reflective walk over objects
 * and fields, and no scan of the heap for byte arrays, can find it. The harness side is
 * {@code defects4j_adapter/jvm/report_signing.py}.
 */
final class SipHash {
    private SipHash() {
    }

    static long mac(long k0, long k1, byte[] m) {
        long v0 = 0x736f6d6570736575L ^ k0;
        long v1 = 0x646f72616e646f6dL ^ k1;
        long v2 = 0x6c7967656e657261L ^ k0;
        long v3 = 0x7465646279746573L ^ k1;
        int end = m.length - (m.length % 8);
        for (int i = 0; i <= end; i += 8) {
            long word;
            if (i < end) {
                word = 0;
                for (int b = 7; b >= 0; b--) {
                    word = (word << 8) | (m[i + b] & 0xffL);
                }
            } else {
                word = ((long) m.length) << 56;
                for (int b = 0; b < m.length - end; b++) {
                    word |= (m[end + b] & 0xffL) << (8 * b);
                }
            }
            v3 ^= word;
            for (int r = 0; r < 2; r++) {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= word;
        }
        v2 ^= 0xff;
        for (int r = 0; r < 4; r++) {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }

    /** 16 hex digits from {@code in}, read one byte at a time (no buffer keeps them). */
    static long readHex(java.io.InputStream in) throws java.io.IOException {
        long value = 0;
        for (int i = 0; i < 16; i++) {
            int c = in.read();
            int digit = Character.digit(c, 16);
            if (c < 0 || digit < 0) {
                throw new java.io.IOException("a job key must be 32 hex digits");
            }
            value = (value << 4) | digit;
        }
        return value;
    }
}
