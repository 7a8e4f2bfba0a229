package dat.switching;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told of each switch of an {@link IaSwitcher}, after the new session is ready. Called on the
 * switcher's thread, one call at a time (and once on the thread that adds the listener, for the
 * switch of the current session); it must not block for long. An exception it throws is
 * logged and otherwise ignored.
 */
@ConsumerType
@FunctionalInterface
public interface SwitchListener {

    /**
     * A switch happened.
     *
     * @param event what was left and what was opened
     */
    void switched(SwitchEvent event);
}
