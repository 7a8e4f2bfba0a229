package org.apache.karaf.jaas.boot.principal;

import java.security.PrivilegedAction;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import java.util.concurrent.CompletionException;
import javax.security.auth.Subject;

/**
 * The subject of a Karaf shell session on JDK 24 and later, where an {@code AccessControlContext}
 * no longer carries one. Part of the DAT Karaf distribution, not of Karaf: {@code Jdk25Patch} adds
 * this class to Karaf's {@code lib/boot/org.apache.karaf.jaas.boot} jar, whose package every bundle
 * that needs it imports from the system bundle (hence its package name), and rewrites Karaf's
 * {@code JaasHelper.doAs} and {@code Subject.getSubject(acc)} calls to the two methods here.
 *
 * <p>{@code Subject.callAs} binds the subject for {@link Subject#current()} in the calling thread
 * only, but Karaf runs each shell session in a thread it starts inside {@code doAs}, as the
 * inherited access control context used to carry the subject there. So the subject also goes into
 * an inheritable thread-local for the duration of the action: a thread started inside inherits
 * it, as it inherited the context before.
 */
public final class Jdk25Subject {

    private static final InheritableThreadLocal<Subject> INHERITED = new InheritableThreadLocal<>();

    private Jdk25Subject() {
    }

    /**
     * What {@code Subject.getSubject(AccessController.getContext())} answered before JDK 24.
     *
     * @return the subject bound by {@code callAs} in this thread, else the one its starting thread
     *         had inside {@link #doAs}, else {@code null}
     */
    public static Subject current() {
        Subject subject = Subject.current();
        return subject != null ? subject : INHERITED.get();
    }

    /**
     * Runs an action as a subject ({@code JaasHelper.doAs}).
     *
     * @param <T> the action's result type
     * @param subject the subject
     * @param action the action
     * @return the action's result
     */
    public static <T> T doAs(Subject subject, PrivilegedAction<T> action) {
        Subject previous = INHERITED.get();
        INHERITED.set(subject);
        try {
            return Subject.callAs(subject, action::run);
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        } finally {
            INHERITED.set(previous);
        }
    }

    /**
     * Runs an action as a subject ({@code JaasHelper.doAs}).
     *
     * @param <T> the action's result type
     * @param subject the subject
     * @param action the action
     * @return the action's result
     * @throws PrivilegedActionException when the action throws a checked exception
     */
    public static <T> T doAs(Subject subject, PrivilegedExceptionAction<T> action) throws PrivilegedActionException {
        Subject previous = INHERITED.get();
        INHERITED.set(subject);
        try {
            return Subject.callAs(subject, action::run);
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (e.getCause() instanceof Exception cause) {
                throw new PrivilegedActionException(cause);
            }
            throw e;
        } finally {
            INHERITED.set(previous);
        }
    }
}
