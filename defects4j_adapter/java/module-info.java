/**
 * nl2fix's test runner, a named module so that the code it judges cannot reach into it: the module
 * exports its package (the JVM must construct {@code SystemLoader}, the launcher call {@code Main})
 * but opens nothing, so no reflection from the class path (the project, its tests, the candidate)
 * can read or change the runner's private state, whatever {@code setAccessible} is granted
 * elsewhere. One package is open: {@code nl2fix.loader}, the job's class loader alone, which projects'
 * tests reflect over as they do under Defects4J and which holds nothing the runner trusts. JUnit stays on the class path ({@code --add-reads nl2fix.runner=ALL-UNNAMED}): the
 * project's own JUnit and Hamcrest jars, whatever their names, are not modules.
 */
module nl2fix.runner {
    requires java.compiler;
    requires jdk.unsupported;
    requires java.management;
    requires java.logging;
    exports nl2fix.runner;
    opens nl2fix.loader;
}
