package nl2fix.runner;

import java.io.OutputStream;

/** What the code under test prints goes to standard error, up to a limit, so a test that
 * prints without end can neither flood the host nor mix with the runner's report. */
final class BoundedStream extends OutputStream {
    private final OutputStream target;
    private long left;

    BoundedStream(OutputStream target, long limit) {
        this.target = target;
        this.left = limit;
    }

    @Override
    public synchronized void write(int b) {
        if (left-- > 0) {
            try {
                target.write(b);
            } catch (java.io.IOException ignored) {
                left = 0;
            }
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        int n = (int) Math.max(0, Math.min(len, left));
        left -= len;
        if (n > 0) {
            try {
                target.write(b, off, n);
            } catch (java.io.IOException ignored) {
                left = 0;
            }
        }
    }

    @Override
    public void flush() {
        try {
            target.flush();
        } catch (java.io.IOException ignored) {
            left = 0;
        }
    }
}
