import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

/**
 * Runs JUnit 3/4 test classes ({@code pkg.Class}) or single test methods ({@code pkg.Class::method})
 * and prints every failure in Defects4J's trigger_tests format: {@code --- pkg.Class::method}
 * followed by the stack trace as JUnit prints it. Exit status 0 when everything passed, 1 otherwise.
 * Used by the benchmark's build.py and verify.py; the validation engines have their own runner.
 */
public final class RunTests {

    private RunTests() {
    }

    public static void main(final String[] args) throws ClassNotFoundException {
        boolean ok = true;
        for (final String spec : args) {
            final int sep = spec.indexOf("::");
            final Class<?> cls = Class.forName(sep < 0 ? spec : spec.substring(0, sep));
            final Request request = sep < 0 ? Request.aClass(cls) : Request.method(cls, spec.substring(sep + 2));
            final Result result = new JUnitCore().run(request);
            if (result.getRunCount() == 0) {
                System.out.println("--- " + spec);
                System.out.println("no test was run");
                ok = false;
            }
            for (final Failure failure : result.getFailures()) {
                final Description d = failure.getDescription();
                System.out.println("--- " + d.getClassName() + "::" + d.getMethodName());
                System.out.print(failure.getTrace());
                ok = false;
            }
        }
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }
}
