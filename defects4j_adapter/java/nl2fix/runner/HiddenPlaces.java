package nl2fix.runner;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the candidate may not look: places whose contents tell nl2fix's job from a plain run on the same
 * machine and which no fix reads. A sandbox shows them empty (users' homes, daemons' sockets, nl2fix's cache,
 * the run's store), a plain run as the user shows them full, so a candidate that looked could be the fix only
 * where they are empty (the lead's round 10, {@code tests/fixtures/redteam/private_data/}: {@code /home} lists
 * nothing, {@code /root/.bashrc} is not there). The harness names them ({@code -Dnl2fix.hidden}) with the job's
 * own paths inside them ({@code -Dnl2fix.shown}: the workspace under nl2fix's cache), which stay readable, as do
 * the job's folders ({@code -Dnl2fix.jobDirs}: without a sandbox they are in nl2fix's cache), the test Java and
 * the JVM's class and module paths.
 *
 * <p>The temporary folder is the job's own (emptied after every job, {@link Scratch}) where a plain run's is the
 * machine's, shared with every process: a plain HotSpot JVM keeps its performance data in
 * {@code /tmp/hsperfdata_<user>} there. So the candidate may read under it only what the job made: not the
 * folder itself (its listing) nor a path whose first name below it is not there.
 */
final class HiddenPlaces {
    private static final ThreadLocal<Boolean> LOOKING = new ThreadLocal<>();
    private static volatile List<String> hidden = List.of();
    private static volatile List<String> shown = List.of();
    private static volatile String tmp;

    private HiddenPlaces() {}

    /** Takes the harness's word (before the runner removes its properties) and the JVM's own paths. */
    static void remember() {
        hidden = canonical(System.getProperty("nl2fix.hidden", ""));
        List<String> own = new ArrayList<>(canonical(System.getProperty("nl2fix.shown", "")));
        own.addAll(canonical(System.getProperty("nl2fix.jobDirs", "")));
        own.addAll(canonical(System.getProperty("java.home", "")));
        own.addAll(canonical(System.getProperty("java.class.path", "")));
        own.addAll(canonical(System.getProperty("jdk.module.path", "")));
        shown = List.copyOf(own);
        List<String> t = canonical(System.getProperty("java.io.tmpdir", ""));
        tmp = t.isEmpty() || t.get(0).equals("/") ? null : t.get(0);
    }

    /** Whether {@code path} (canonical) is a place the candidate may not read; nothing while this thread
     * is already looking (the existence check below reads through the security manager too). */
    static boolean hides(String path) {
        if (LOOKING.get() != null) {
            return false;
        }
        String t = tmp;
        if (t != null && (path.equals(t) || path.startsWith(t + "/"))) {
            return path.equals(t) || !made(t, path.substring(t.length() + 1));
        }
        return under(path, hidden) && !under(path, shown);
    }

    /** Whether the first name of {@code rest} is in the temporary folder {@code t}. */
    private static boolean made(String t, String rest) {
        int slash = rest.indexOf('/');
        LOOKING.set(Boolean.TRUE);
        try {
            return new File(t, slash < 0 ? rest : rest.substring(0, slash)).exists();
        } finally {
            LOOKING.remove();
        }
    }

    private static boolean under(String path, List<String> roots) {
        for (String root : roots) {
            if (path.equals(root) || path.startsWith(root.endsWith("/") ? root : root + "/")) {
                return true;
            }
        }
        return false;
    }

    private static List<String> canonical(String paths) {
        List<String> out = new ArrayList<>();
        for (String p : paths.split(File.pathSeparator)) {
            if (p.isEmpty()) {
                continue;
            }
            try {
                out.add(new File(p).getCanonicalPath());
            } catch (java.io.IOException e) {
                out.add(new File(p).getAbsolutePath());
            }
        }
        return out;
    }
}
