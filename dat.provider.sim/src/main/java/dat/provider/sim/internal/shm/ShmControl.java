package dat.provider.sim.internal.shm;

import dat.provider.sim.internal.core.SimEvd;

/**
 * What a shared-memory connection needs of its control connection (the TCP connection that set
 * it up and stays open beside it): the end of the connection, the doorbell, and the I/O agent
 * that waiting consumers drive. None of the calls blocks; the first three are made with the
 * Endpoint's lock held.
 */
public interface ShmControl {

    /** Wakes the peer's agent, which sleeps with its rings armed: a NOP frame on the control connection. */
    void ringDoorbell();

    /** The local Endpoint disconnected: DISCONNECT, then the FIN. */
    void disconnect();

    /** The local Endpoint broke the connection: the FIN without a DISCONNECT, so that the peer sees it broken. */
    void breakOff();

    /**
     * The peer broke the protocol in its rings (the local Endpoint broke already): counted and
     * logged, and the control connection closes. Called without locks.
     *
     * @param reason what was wrong
     */
    void violation(String reason);

    /**
     * A dat_lmr_free cannot wait any longer for the peer (it does not answer requests that hand it
     * memory by reference): the connection breaks. Called without locks.
     */
    void cut();

    /**
     * Completions went to {@code evd}: a consumer waiting or polling on it runs the agent.
     *
     * @param evd the EVD, or {@code null}
     */
    void noteDriver(SimEvd evd);
}
