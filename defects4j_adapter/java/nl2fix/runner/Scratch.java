package nl2fix.runner;

import java.io.File;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The folders a job may write, its temporary folder and working directory, emptied after every job
 * so the next one starts as the first did: a job that filled the temporary folder made every later
 * test that writes a temporary file fail ("No space left on device"), and a file left where a test
 * makes a folder did the same. The JDK keeps {@code java.io.tmpdir} once read, so the folders stay
 * and their contents go. Kept is only what was there when the JVM started (the harness's links to
 * the project root in the working directory), and only as it was then. The quota is the sandbox's
 * (a tmpfs of its own per folder), which every job then has whole.
 *
 * <p>The harness names these folders ({@code -Dnl2fix.jobDirs}, separated by
 * {@link File#pathSeparator}): the runner empties nothing it was not told is the job's own (under
 * {@code --sandbox none} without a scratch folder the temporary folder is the host's). A JVM whose
 * temporary folder or working directory is not among them cannot show a clean start and takes
 * no further job after one that ran code.
 */
final class Scratch {
    private static final Set<PosixFilePermission> OWNER_ALL = PosixFilePermissions.fromString("rwx------");
    private static final long USAGE_SLACK = 1L << 20;
    private static final long RELEASE_MS = 1_000;

    private final List<Folder> folders = new ArrayList<>();
    private final boolean covered;

    /** A folder as it was when the JVM started. */
    private static final class Folder {
        final Path root;
        final Set<PosixFilePermission> mode;
        /** Entry name to its link target ({@code null}: not a link). */
        final Map<String, Path> kept = new HashMap<>();
        /** The folder's own file system, or null when it shares one. */
        final FileStore store;
        /** Bytes in use there at start. */
        final long used;

        Folder(Path root) throws IOException {
            this.root = root;
            this.mode = Files.getPosixFilePermissions(root, LinkOption.NOFOLLOW_LINKS);
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(root)) {
                for (Path p : entries) {
                    kept.put(p.getFileName().toString(), Files.isSymbolicLink(p) ? Files.readSymbolicLink(p) : null);
                }
            }
            this.store = ownFileSystem(root) ? Files.getFileStore(root) : null;
            this.used = store == null ? 0 : used(store);
        }
    }

    private Scratch(String declared) throws IOException {
        List<Path> roots = new ArrayList<>();
        for (String d : declared.split(File.pathSeparator)) {
            if (!d.isEmpty()) {
                Path root = Paths.get(d).toRealPath();
                roots.add(root);
                folders.add(new Folder(root));
            }
        }
        covered = roots.contains(Paths.get(System.getProperty("java.io.tmpdir")).toRealPath())
                && roots.contains(Paths.get(System.getProperty("user.dir")).toRealPath());
    }

    /** The folders the harness declared ({@code -Dnl2fix.jobDirs}, read at start), as they are now (before any job). */
    static Scratch declared(String jobDirs) throws IOException {
        return new Scratch(jobDirs);
    }

    /** Empties every folder back to how it was at start (the links it held put back), following
     * no link; what is not so now, or null (the temporary folder and working directory are among
     * them). */
    String left() throws InterruptedException {
        if (!covered) {
            return "the temporary folder or working directory is not the job's own";
        }
        for (Folder f : folders) {
            if (!reset(f)) {
                return "the folder " + f.root + " could not be emptied or its space is still held";
            }
        }
        return null;
    }

    private static boolean reset(Folder f) throws InterruptedException {
        try {
            if (!Files.getPosixFilePermissions(f.root, LinkOption.NOFOLLOW_LINKS).equals(f.mode)) {
                Files.setPosixFilePermissions(f.root, f.mode);
            }
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(f.root)) {
                for (Path p : entries) {
                    String name = p.getFileName().toString();
                    if (!f.kept.containsKey(name) || !same(p, f.kept.get(name))) {
                        delete(p);
                    }
                }
            }
            for (Map.Entry<String, Path> e : f.kept.entrySet()) {
                Path p = f.root.resolve(e.getKey());
                if (e.getValue() != null && !Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(p, e.getValue());
                }
            }
            Map<String, Path> now = new HashMap<>();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(f.root)) {
                for (Path p : entries) {
                    now.put(p.getFileName().toString(), Files.isSymbolicLink(p) ? Files.readSymbolicLink(p) : null);
                }
            }
            return now.equals(f.kept) && released(f);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** A kept entry is kept only as it was: the same link, or still not a link. */
    private static boolean same(Path p, Path target) throws IOException {
        return target == null ? !Files.isSymbolicLink(p) : Files.isSymbolicLink(p) && Files.readSymbolicLink(p).equals(target);
    }

    /** Deletes {@code p} and, if it is a folder, what it holds, giving back the rights a job
     * took from its folders; a link is deleted, never followed. */
    private static void delete(Path p) throws IOException {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isDirectory()) {
            Files.setPosixFilePermissions(p, OWNER_ALL);
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {
                for (Path c : entries) {
                    delete(c);
                }
            }
        }
        Files.delete(p);
    }

    /** The folder's own file system uses no more than at start: a file the job deleted but still
     * holds open keeps its space (it goes once the collector closes the stream). */
    private static boolean released(Folder f) throws IOException, InterruptedException {
        if (f.store == null) {
            return true;
        }
        long deadline = System.nanoTime() + RELEASE_MS * 1_000_000L;
        while (used(f.store) > f.used + USAGE_SLACK) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    private static long used(FileStore store) throws IOException {
        return store.getTotalSpace() - store.getUnallocatedSpace();
    }

    /** The folder is the root of a file system of its own (a tmpfs of the sandbox), so what that
     * file system uses is the job's. */
    private static boolean ownFileSystem(Path root) throws IOException {
        Path parent = root.getParent();
        return parent != null && !Files.getAttribute(root, "unix:dev", LinkOption.NOFOLLOW_LINKS)
                .equals(Files.getAttribute(parent, "unix:dev", LinkOption.NOFOLLOW_LINKS));
    }
}
