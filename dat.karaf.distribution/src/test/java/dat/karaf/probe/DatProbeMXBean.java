package dat.karaf.probe;

import java.util.List;

/**
 * What the test asks of the probe bundle inside Karaf, over JMX: the container's view of DAT. Every
 * operation is bounded in time; failures come back as exceptions with their message.
 */
public interface DatProbeMXBean {

    /** The object name the probe registers under. */
    String OBJECT_NAME = "dat.karaf:type=Probe";

    /**
     * The registry's providers, one line each: IA name, provider name, transport.
     *
     * @return the lines
     */
    List<String> providers();

    /**
     * Opens an IA through the registry and runs a verified exchange on it: connect two Endpoints,
     * send messages and RDMA-write, check every byte, close everything.
     *
     * @param iaName the IA
     * @param messages how many messages to send
     * @return a summary line starting with {@code ok}
     * @throws Exception when any step fails
     */
    String exchange(String iaName, int messages) throws Exception;

    /**
     * Opens an IA and keeps it open with traffic done on it, so that its counters show.
     *
     * @param iaName the IA
     * @throws Exception when it cannot be opened
     */
    void hold(String iaName) throws Exception;

    /** Closes the IA {@link #hold} opened. */
    void release();

    /**
     * The attribute IDs the Metatype service describes for a configuration PID.
     *
     * @param pid the PID
     * @return the attribute IDs, empty when none is described
     */
    List<String> metatype(String pid);

    /**
     * A bundle's state and id.
     *
     * @param symbolicName the bundle
     * @return for example {@code ACTIVE 42}, or {@code MISSING}
     */
    String bundleState(String symbolicName);

    /**
     * Starts or stops a bundle.
     *
     * @param symbolicName the bundle
     * @param started start it ({@code true}) or stop it
     * @throws Exception when the framework refuses
     */
    void setBundleStarted(String symbolicName, boolean started) throws Exception;
}
