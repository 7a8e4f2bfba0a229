package dat.provider.sim.internal.core;

/** A PSP or an RSP: what listens on a connection qualifier of an {@link Adapter}. */
interface ServicePoint {

    /** The connection qualifier. */
    long connQual();

    /**
     * A connection request arrived on the qualifier. Called with the connection-management lock
     * held, on the conductor thread (or a handoff's thread).
     *
     * @param attempt the request
     */
    void onRequest(ConnectAttempt attempt);
}
