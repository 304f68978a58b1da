package nl2fix.runner;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether this JVM can open its own memory, tried before it takes any job: with it open a
 * candidate reads the job's key and rewrites the runner's report (nl2fix's native agent makes the
 * JVM non-dumpable so that a job uid that is not root cannot; see
 * {@code defects4j_adapter/native/nl2fix_wall.c}). The answer is the plain line
 * {@code MEMORY closed} or {@code MEMORY open <what opened>}, written before any code under test
 * can write lines of its own. When the harness confines candidates it asks for the wall with
 * {@code -Dnl2fix.memory_wall=required}, and the runner then refuses to start without it.
 */
final class MemoryWall {
    private MemoryWall() {
    }

    static void check(Report report) {
        String self = "/proc/" + ProcessHandle.current().pid();
        List<String> open = new ArrayList<>();
        for (String path : new String[] {"/proc/self/mem", self + "/mem", "/proc/self/pagemap", "/proc/self/environ"}) {
            if (opens(path, "r")) {
                open.add(path + " (read)");
            }
            if (path.endsWith("/mem") && opens(path, "rw")) {
                open.add(path + " (write)");
            }
        }
        if (open.isEmpty()) {
            report.line("MEMORY", "closed");
            return;
        }
        String what = String.join(", ", open);
        report.line("MEMORY", "open", what);
        if ("required".equals(System.getProperty("nl2fix.memory_wall"))) {
            report.line("ERROR", "this JVM can open its own memory (" + what + "): it takes no candidate");
            Guard.halt(3);
        }
    }

    private static boolean opens(String path, String mode) {
        try (RandomAccessFile file = new RandomAccessFile(path, mode)) {
            return true;
        } catch (IOException | SecurityException e) {
            return false;
        }
    }
}
