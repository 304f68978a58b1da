package nl2fix.runner;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;

/**
 * The machine-readable channel: one {@code NL2FIX<TAB>KIND<TAB>field...} line per event on the
 * JVM's real standard output. Fields escape backslash, tab, CR and LF; the Python side
 * ({@code defects4j_adapter/engines/runner_output.py}) reads the same format.
 *
 * <p>Code under test can write to that same output ({@code new FileOutputStream(FileDescriptor.out)},
 * a child process), so plain lines are progress only (which test was running when the JVM
 * died): they can make a verdict worse, never a pass. What decides a verdict is {@link #signed}:
 * lines carrying a SipHash MAC under the job's key, which the harness sends on this JVM's
 * standard input right before the job (never in a file) and which lives only in local
 * variables of the runner (see {@link SipHash}). Lines are numbered, so none can be dropped,
 * repeated or reordered unnoticed, and carry the job id, so none can be replayed from another job.
 */
final class Report {
    private static final int FIELD_LIMIT = 4000;
    private final PrintStream out;

    Report() throws UnsupportedEncodingException {
        this.out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
    }

    static String escape(String text) {
        return escape(text, FIELD_LIMIT);
    }

    private static String escape(String text, int limit) {
        if (text == null) {
            return "";
        }
        String clipped = text.length() > limit ? text.substring(0, limit) + "..." : text;
        StringBuilder b = new StringBuilder(clipped.length() + 16);
        for (int i = 0; i < clipped.length(); i++) {
            char c = clipped.charAt(i);
            switch (c) {
                case '\\': b.append("\\\\"); break;
                case '\t': b.append("\\t"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                default: b.append(c);
            }
        }
        return b.toString();
    }

    /** Each line starts on a line of its own: code under test can still write to the real
     * standard output ({@code new FileOutputStream(FileDescriptor.out)}, a child process that
     * inherits it), and text it leaves without a line break would otherwise run into the next
     * report line and hide it (a failing test's) from the reader. */
    synchronized void line(String kind, String... fields) {
        StringBuilder b = new StringBuilder("\nNL2FIX\t").append(kind);
        for (String f : fields) {
            b.append('\t').append(escape(f));
        }
        out.print(b.append('\n'));
        out.flush();
    }

    /** {@code NL2FIX SIGNED seq id KIND field... mac}: the MAC covers everything between
     * {@code SIGNED<TAB>} and the last tab, as written (escaped, UTF-8). */
    synchronized void signed(long k0, long k1, int seq, String id, String kind, String... fields) {
        signed(FIELD_LIMIT, k0, k1, seq, id, kind, fields);
    }

    /** {@link #signed} with fields clipped at {@code limit}: for rows whose texts the runner bounded itself (a behaviour
     * probe's whole texts, {@link BehaviourProbe#WHOLE_TEXTS} a job), past the {@link #FIELD_LIMIT} that bounds what
     * code under test can make a field hold. */
    synchronized void signed(int limit, long k0, long k1, int seq, String id, String kind, String... fields) {
        StringBuilder body = new StringBuilder().append(seq).append('\t').append(escape(id)).append('\t').append(kind);
        for (String f : fields) {
            body.append('\t').append(escape(f, limit));
        }
        sign(k0, k1, body);
    }

    /** {@code bytes} out whole: an unsigned {@code CLASSBYTES name base64} line (SipHash over
     * every byte would cost the harness more than the check), then a signed line naming its
     * SHA-256, which the harness compares. */
    synchronized void signedBytes(long k0, long k1, int seq, String id, String kind, String name, byte[] bytes)
            throws java.security.NoSuchAlgorithmException {
        out.print("\nNL2FIX\tCLASSBYTES\t" + escape(name) + "\t" + java.util.Base64.getEncoder().encodeToString(bytes) + "\n");
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
        StringBuilder hex = new StringBuilder();
        for (byte b : digest) {
            hex.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
        }
        signed(k0, k1, seq, id, kind, name, hex.toString());
    }

    private void sign(long k0, long k1, StringBuilder body) {
        long mac = SipHash.mac(k0, k1, body.toString().getBytes(StandardCharsets.UTF_8));
        String hex = Long.toHexString(mac);
        out.print("\nNL2FIX\tSIGNED\t" + body + "\t" + "0000000000000000".substring(hex.length()) + hex + "\n");
        out.flush();
    }
}
