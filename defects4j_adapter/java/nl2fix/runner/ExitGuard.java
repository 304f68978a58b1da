package nl2fix.runner;

import java.security.Permission;

/**
 * Turns {@code System.exit} from the code under test into a {@link SecurityException}, so the
 * test fails and the runner goes on. Everything else is allowed. Needs
 * {@code -Djava.security.manager=allow} on Java 18+ (deprecated there, still working); when it
 * cannot be installed, an exit still shows as a JVM that ended with tests unreported.
 */
final class ExitGuard extends SecurityManager {
    private static volatile boolean allowExit;
    private static volatile String lastExit;

    @Override
    public void checkPermission(Permission perm) {
    }

    @Override
    public void checkPermission(Permission perm, Object context) {
    }

    @Override
    public void checkExit(int status) {
        if (!allowExit) {
            lastExit = "System.exit(" + status + ") called by the code under test";
            throw new SecurityException("nl2fix: " + lastExit);
        }
    }

    /** The exit attempt since the last call, or null. */
    static String takeExitAttempt() {
        String s = lastExit;
        lastExit = null;
        return s;
    }

    static ExitGuard install() {
        ExitGuard guard = new ExitGuard();
        try {
            System.setSecurityManager(guard);
            return guard;
        } catch (UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    static void halt(int status) {
        allowExit = true;
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }
}
