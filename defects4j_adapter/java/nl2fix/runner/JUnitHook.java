package nl2fix.runner;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * Writes JUnit's {@code EachTestNotifier} with a call of {@link Thrown#reported} first in its
 * {@code addFailure(Throwable)}, the one method through which JUnit 4 (4.5 to 4.13) reports what a
 * test's or a class's statement threw. The harness runs this once per JUnit jar, on the host, and
 * puts the folder written before the jar on the test JVM's class path, so the class loads patched
 * from the start (the jar's packages are not sealed). {@code JUnitHook OUT JAR...}: the first jar
 * holding the class is patched; exit status 0 when written, 3 when no jar holds it (no JUnit 4).
 */
public final class JUnitHook {
    private JUnitHook() {
    }

    static final String CLASS = "org/junit/internal/runners/model/EachTestNotifier.class";
    private static final CallInserter.Call REPORTED = new CallInserter.Call(
            "nl2fix/runner/Thrown", "reported", "(Ljava/lang/Throwable;)V", CallInserter.ALOAD_1);

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: JUnitHook OUT JAR...");
            System.exit(2);
        }
        for (int i = 1; i < args.length; i++) {
            byte[] original = read(new File(args[i]));
            if (original == null) {
                continue;
            }
            byte[] hooked = CallInserter.hook(original, REPORTED, "addFailure", "(Ljava/lang/Throwable;)V");
            if (hooked == null) {
                System.err.println(args[i] + ": " + CLASS + " has no addFailure(Throwable) the hook can go into");
                System.exit(1);
            }
            Path out = Paths.get(args[0], CLASS);
            Files.createDirectories(out.getParent());
            Files.write(out, hooked);
            System.out.println("hooked " + CLASS + " of " + args[i]);
            return;
        }
        System.exit(3);
    }

    private static byte[] read(File jar) throws IOException {
        if (!jar.isFile()) {
            return null;
        }
        try (JarFile j = new JarFile(jar)) {
            ZipEntry e = j.getEntry(CLASS);
            if (e == null) {
                return null;
            }
            try (InputStream in = j.getInputStream(e)) {
                return in.readAllBytes();
            }
        }
    }
}
