package dat.registry.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import dat.registry.DatConf;
import dat.registry.RecordingFactory;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * What the registry's tests share: a registry without a framework, factories registered as OSGi
 * services would be, a dat.conf set as the static registry, and the check of a DatException's code.
 */
abstract class RegistryFixture {

    final Registry registry = new Registry(2);
    private long nextServiceId = 100;

    /** Registers a factory as an OSGi service would be, with a service.id. */
    long register(RecordingFactory factory) {
        long id = nextServiceId++;
        registry.register(Registration.describe(id, Registration.Kind.SERVICE, "service " + id, factory.properties,
                new Registration.Direct(factory)));
        return id;
    }

    /** A provider whose init of the given ia_params says it began, then waits (up to 20 s) to be let go. */
    static RecordingFactory slowInit(String iaParams, CountDownLatch inInit, CountDownLatch letGo) {
        return new RecordingFactory("sim") {
            @Override
            public void init(ProviderInfo providerInfo, String instanceData) {
                super.init(providerInfo, instanceData);
                if (instanceData.equals(iaParams)) {
                    inInit.countDown();
                    try {
                        letGo.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
    }

    /**
     * Registers a factory as an OSGi service whose release is recorded among its calls; as a
     * service's, the factory is no longer there once released.
     */
    long registerRecordingRelease(Registry target, RecordingFactory factory) {
        long id = nextServiceId++;
        target.register(Registration.describe(id, Registration.Kind.SERVICE, "service " + id, factory.properties,
                new Registration.FactoryHandle() {
                    private volatile boolean released;

                    @Override
                    public DatIaFactory get() {
                        return released ? null : factory;
                    }

                    @Override
                    public void release() {
                        released = true;
                        put(factory.calls, "release");
                    }
                }));
        return id;
    }

    /** Opens and closes an IA on a thread of its own, keeping the error it met. */
    static Thread openInBackground(Registry target, String iaName, AtomicReference<DatException> failure) {
        Thread opener = new Thread(() -> {
            try {
                target.openIa(iaName).close();
            } catch (DatException e) {
                failure.set(e);
            }
        }, "test-opener");
        opener.start();
        return opener;
    }

    static void assertCode(ThrowingCallable call, int type, int subtype) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DatException.class, e -> {
            assertThat(DatReturn.describe(e.code())).isEqualTo(DatReturn.describe(DatReturn.error(type, subtype)));
        });
    }

    InterfaceAdapter open(String name, int major, int minor, boolean threadSafe) {
        return registry.openIa(name, 8, null, major, minor, threadSafe);
    }

    static void put(List<String> list, String entry) {
        synchronized (list) {
            list.add(entry);
        }
    }

    static DatConf conf(String text) {
        return DatConf.parse("dat.conf", text);
    }

    void setConf(String text) {
        setConf(registry, text);
    }

    static void setConf(Registry target, String text) {
        target.setStaticRegistry(new StaticRegistry("dat.conf", conf(text), null));
    }
}
