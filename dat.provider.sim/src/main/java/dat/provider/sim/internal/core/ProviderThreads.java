package dat.provider.sim.internal.core;

/** The threads the provider starts: made so that they keep nothing of the thread that asked for them. */
public final class ProviderThreads {

    private ProviderThreads() {
    }

    /**
     * An unstarted platform thread of the provider's, made on whichever thread asks (a consumer's,
     * in dat_ia_open or dat_ep_connect): a daemon of normal priority, with none of that thread's
     * inheritable thread locals and the provider's class loader as its context class loader, so a
     * thread that outlives the call keeps nothing of the caller's (in OSGi: not a consumer
     * bundle's class loader after that bundle is gone).
     *
     * @param name the thread's name
     * @param body what it runs
     * @return the thread, not started
     */
    public static Thread unstarted(String name, Runnable body) {
        Thread t = Thread.ofPlatform().daemon().priority(Thread.NORM_PRIORITY).name(name)
                .inheritInheritableThreadLocals(false).unstarted(body);
        t.setContextClassLoader(ProviderThreads.class.getClassLoader());
        return t;
    }
}
