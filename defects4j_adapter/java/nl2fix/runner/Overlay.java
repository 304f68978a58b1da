package nl2fix.runner;

import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.security.Permission;
import java.util.Map;

/**
 * The class files compiled from the candidate's source, served as the first entry of a plain
 * {@link java.net.URLClassLoader}'s class path (a {@code memory:/} URL: a protocol that says what it is and
 * not who serves it, since a candidate can read its class's resource URL; {@code file:} would make the
 * JDK read the folder itself, bypassing this handler). The candidate's loader
 * is then the JDK's own class, with no method of this module in it: test libraries that reflect
 * on the loader of the classes they test (PowerMock's {@code DeferSupportingClassLoader} makes
 * every method of it accessible) can, as under Defects4J, while this module opens nothing to the
 * code it judges. Reading a class file through the loader ({@code getResource("A.class")}) gives
 * the candidate's bytes, as the compiled project would.
 */
final class Overlay extends URLStreamHandler {
    static final String PROTOCOL = "memory";

    private final Map<String, byte[]> classes;

    private Overlay(Map<String, byte[]> classes) {
        this.classes = classes;
    }

    /** The class path entry that serves {@code classes} (binary name to class file). */
    static URL entry(Map<String, byte[]> classes) throws MalformedURLException {
        return new URL(PROTOCOL, "", -1, "/", new Overlay(Map.copyOf(classes)));
    }

    @Override
    protected URLConnection openConnection(URL u) {
        return new URLConnection(u) {
            @Override
            public void connect() {
                connected = true;
            }

            @Override
            public InputStream getInputStream() throws FileNotFoundException {
                byte[] bytes = classes.get(className(getURL()));
                if (bytes == null) {
                    throw new FileNotFoundException(getURL().toString());
                }
                return new ByteArrayInputStream(bytes);
            }

            @Override
            public long getContentLengthLong() {
                byte[] bytes = classes.get(className(getURL()));
                return bytes == null ? -1 : bytes.length;
            }

            /** None: the class path entry grants the classes it defines nothing. */
            @Override
            public Permission getPermission() {
                return null;
            }
        };
    }

    private static String className(URL url) {
        String path;
        try {
            path = new URI(url.toString()).getPath();
        } catch (URISyntaxException e) {
            return "";
        }
        if (path == null || !path.startsWith("/") || !path.endsWith(".class")) {
            return "";
        }
        return path.substring(1, path.length() - ".class".length()).replace('/', '.');
    }
}
