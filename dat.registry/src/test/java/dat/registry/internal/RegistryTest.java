package dat.registry.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dat.api.DatException;
import dat.api.DatRegistryListener;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.registry.DatConf;
import dat.registry.RecordingFactory;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The registry's semantics without a framework: dat_ia_open matching and its codes,
 * dat_registry_add/remove/list_providers and theirs, ranking and shadowing, the static registry
 * with init/fini, listeners, filters and runtime DTOs.
 */
class RegistryTest {

    private final Registry registry = new Registry(2);
    private long nextServiceId = 100;

    /** Registers a factory as an OSGi service would be, with a service.id. */
    private long register(RecordingFactory factory) {
        long id = nextServiceId++;
        registry.register(Registration.describe(id, Registration.Kind.SERVICE, "service " + id, factory.properties,
                new Registration.Direct(factory)));
        return id;
    }

    /** A provider whose init of the given ia_params says it began, then waits (up to 20 s) to be let go. */
    private static RecordingFactory slowInit(String iaParams, CountDownLatch inInit, CountDownLatch letGo) {
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
    private long registerRecordingRelease(Registry target, RecordingFactory factory) {
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
    private static Thread openInBackground(Registry target, String iaName, AtomicReference<DatException> failure) {
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

    private static void assertCode(ThrowingCallable call, int type, int subtype) {
        assertThatThrownBy(call).isInstanceOfSatisfying(DatException.class, e -> {
            assertThat(DatReturn.describe(e.code())).isEqualTo(DatReturn.describe(DatReturn.error(type, subtype)));
        });
    }

    private InterfaceAdapter open(String name, int major, int minor, boolean threadSafe) {
        return registry.openIa(name, 8, null, major, minor, threadSafe);
    }

    private static void put(List<String> list, String entry) {
        synchronized (list) {
            list.add(entry);
        }
    }

    private static DatConf conf(String text) {
        return DatConf.parse("dat.conf", text);
    }

    private void setConf(String text) {
        setConf(registry, text);
    }

    private static void setConf(Registry target, String text) {
        target.setStaticRegistry(new StaticRegistry("dat.conf", conf(text), null));
    }

    // --- dat_ia_open ----------------------------------------------------------------------------

    @Test
    void opensAnIaOfferedByAProvider() {
        RecordingFactory sim = new RecordingFactory("sim", "sim0");
        register(sim);
        try (InterfaceAdapter ia = registry.openIa("sim0")) {
            assertThat(ia.name()).isEqualTo("sim0");
            assertThat(sim.opens).singleElement().satisfies(request -> {
                assertThat(request.iaName()).isEqualTo("sim0");
                assertThat(request.asyncEvdMinQlen()).isEqualTo(8);
                assertThat(request.asyncEvd()).isNull();
                assertThat(request.instanceData()).isEmpty();
            });
        }
        assertThat(registry.listProviders()).containsExactly(new ProviderInfo("sim0", 1, 2, false));
    }

    @Test
    void removesTheRelaxedOrderingPrefix() {
        register(new RecordingFactory("sim", "sim0"));
        assertThat(registry.openIa("RO_AWARE_sim0").name()).isEqualTo("sim0");
    }

    @Test
    void answersProviderNotFoundWithTheRightSubtype() {
        register(new RecordingFactory("sim", "sim0")); // DAT 1.2, not thread safe
        assertCode(() -> open("sim9", 1, 2, false), DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED);
        assertCode(() -> open("sim0", 2, 0, false), DatReturn.PROVIDER_NOT_FOUND, DatReturn.MAJOR_NOT_FOUND);
        assertCode(() -> open("sim0", 1, 3, false), DatReturn.PROVIDER_NOT_FOUND, DatReturn.MINOR_NOT_FOUND);
        assertCode(() -> open("sim0", 1, 2, true), DatReturn.PROVIDER_NOT_FOUND, DatReturn.THREAD_SAFETY_NOT_FOUND);
        assertThatThrownBy(() -> open("sim0", 1, 3, false)).hasMessage(
                "DAT_PROVIDER_NOT_FOUND DAT_MINOR_NOT_FOUND (iaName): IA 'sim0' is offered for DAT 1.2, older than 1.3");
        assertThat(open("sim0", 1, 1, false).name()).as("a 1.2 provider serves a 1.1 consumer").isEqualTo("sim0");
    }

    @Test
    void aThreadSafeProviderServesAConsumerThatDoesNotAskForIt() {
        RecordingFactory safe = new RecordingFactory("safe", "ts0").with(DatProviderConstants.DAT_THREAD_SAFE, true);
        register(safe);
        assertThat(open("ts0", 1, 2, false).name()).isEqualTo("ts0");
        assertThat(open("ts0", 1, 2, true).name()).isEqualTo("ts0");
        assertThat(safe.opens).hasSize(2);
    }

    @Test
    void prefersTheExactMinorVersionAndThreadSafety() {
        RecordingFactory old = new RecordingFactory("old", "x0");
        RecordingFactory newer = new RecordingFactory("newer", "x0").with(DatProviderConstants.DAT_API_VERSION, "1.3");
        RecordingFactory safe = new RecordingFactory("safe", "x0").with(DatProviderConstants.DAT_API_VERSION, "1.3")
                .with(DatProviderConstants.DAT_THREAD_SAFE, true);
        register(safe);
        register(newer);
        register(old);
        open("x0", 1, 2, false);
        assertThat(old.opens).hasSize(1);
        open("x0", 1, 3, false);
        assertThat(newer.opens).hasSize(1);
        open("x0", 1, 2, true);
        assertThat(safe.opens).hasSize(1);
        assertThat(registry.getRuntimeDTO().providers(ProviderDTO.State.ACTIVE)).hasSize(3);
    }

    @Test
    void rejectsInvalidParameters() {
        register(new RecordingFactory("sim", "sim0"));
        assertCode(() -> open(null, 1, 2, false), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
        assertCode(() -> open("", 1, 2, false), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
        assertCode(() -> registry.openIa("sim0", 0, null, 1, 2, false), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        assertCode(() -> open("sim0", -1, 2, false), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG5);
        assertCode(() -> open("sim0", 1, -2, false), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6);
        // an existing async EVD makes the queue length irrelevant
        registry.openIa("sim0", 0, EventDispatcher.ASYNC_EXISTS, 1, 2, false);
    }

    @Test
    void rejectsAClosedAsyncEvd() {
        register(new RecordingFactory("sim", "sim0"));
        EventDispatcher closed = (EventDispatcher) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {EventDispatcher.class}, (proxy, method, args) -> method.getName().equals("isOpen") ? false : null);
        assertCode(() -> registry.openIa("sim0", 8, closed, 1, 2, false), DatReturn.INVALID_HANDLE,
                DatReturn.INVALID_HANDLE_EVD_ASYNC);
    }

    @Test
    void passesTheProvidersCodesOnAndWrapsItsBugs() {
        RecordingFactory sim = new RecordingFactory("sim", "sim0");
        register(sim);
        sim.failOpen = DatException.of(DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY, null, "full");
        assertCode(() -> registry.openIa("sim0"), DatReturn.INSUFFICIENT_RESOURCES, DatReturn.RESOURCE_MEMORY);
        sim.failOpen = new IllegalStateException("bug");
        assertCode(() -> registry.openIa("sim0"), DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE);
        sim.failOpen = null;
        assertThat(registry.getRuntimeDTO().providers()).singleElement()
                .satisfies(dto -> assertThat(dto.openIas()).isZero());
    }

    // --- ranking and shadowing ------------------------------------------------------------------

    @Test
    void theHigherRankingWinsAndTheLoserTakesOverWhenTheWinnerLeaves() {
        RecordingFactory low = new RecordingFactory("low", "dup0");
        RecordingFactory high = new RecordingFactory("high", "dup0").with("service.ranking", 5);
        long lowId = register(low);
        long highId = register(high);
        registry.openIa("dup0");
        assertThat(high.opens).hasSize(1);
        assertThat(low.opens).isEmpty();
        RegistryRuntimeDTO runtime = registry.getRuntimeDTO();
        assertThat(runtime.providers(ProviderDTO.State.ACTIVE)).singleElement().extracting(ProviderDTO::id).isEqualTo(highId);
        assertThat(runtime.providers(ProviderDTO.State.SHADOWED)).singleElement().satisfies(dto -> {
            assertThat(dto.id()).isEqualTo(lowId);
            assertThat(dto.failureReason()).isEqualTo(ProviderDTO.FAILURE_REASON_SHADOWED);
            assertThat(dto.failureDetail()).isEqualTo("shadowed by service " + highId + " (provider 'high')");
        });
        assertThat(registry.listProviders()).as("a shadowed provider is not listed twice").hasSize(1);

        registry.unregister(highId);
        registry.openIa("dup0");
        assertThat(low.opens).hasSize(1);
        assertThat(registry.getRuntimeDTO().providers(ProviderDTO.State.SHADOWED)).isEmpty();
    }

    @Test
    void equalRankingsGoToTheLowerServiceId() {
        RecordingFactory first = new RecordingFactory("first", "dup0");
        RecordingFactory second = new RecordingFactory("second", "dup0");
        register(second); // id 100 is second's
        register(first);
        registry.openIa("dup0");
        assertThat(second.opens).hasSize(1);
    }

    @Test
    void modifiedPropertiesReDescribeTheProvider() {
        RecordingFactory sim = new RecordingFactory("sim", "sim0");
        long id = register(sim);
        sim.with(DatProviderConstants.DAT_IA_NAME, new String[] {"sim1", "sim2"});
        registry.register(Registration.describe(id, Registration.Kind.SERVICE, "service " + id, sim.properties,
                new Registration.Direct(sim)));
        assertThat(registry.listProviders()).extracting(ProviderInfo::iaName).containsExactly("sim1", "sim2");
        assertCode(() -> registry.openIa("sim0"), DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED);
    }

    @Test
    void invalidPropertiesFailTheProviderWithTheReason() {
        register(new RecordingFactory("sim", "sim0").with(DatProviderConstants.DAT_THREAD_SAFE, "true"));
        RecordingFactory noName = new RecordingFactory("x", "nn0");
        noName.properties.remove(DatProviderConstants.DAT_PROVIDER_NAME);
        register(noName);
        register(new RecordingFactory("v", "v0").with(DatProviderConstants.DAT_API_VERSION, "one.two"));
        register(new RecordingFactory("ro", "RO_AWARE_r0"));
        assertThat(registry.getRuntimeDTO().providers()).extracting(ProviderDTO::state, ProviderDTO::failureReason,
                ProviderDTO::failureDetail).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple(ProviderDTO.State.FAILED, ProviderDTO.FAILURE_REASON_INVALID_PROPERTIES,
                        "dat.thread.safe must be a Boolean, not String 'true'"),
                org.assertj.core.groups.Tuple.tuple(ProviderDTO.State.FAILED, ProviderDTO.FAILURE_REASON_INVALID_PROPERTIES,
                        "no dat.provider.name property"),
                org.assertj.core.groups.Tuple.tuple(ProviderDTO.State.FAILED, ProviderDTO.FAILURE_REASON_INVALID_PROPERTIES,
                        "dat.api.version 'one.two' is not <major>.<minor>, for example 1.2"),
                org.assertj.core.groups.Tuple.tuple(ProviderDTO.State.FAILED, ProviderDTO.FAILURE_REASON_INVALID_PROPERTIES,
                        "dat.ia.name 'RO_AWARE_r0' starts with RO_AWARE_, which dat_ia_open removes before matching"));
        assertThat(registry.listProviders()).isEmpty();
        assertThatThrownBy(() -> registry.openIa("sim0")).hasMessage("DAT_PROVIDER_NOT_FOUND DAT_NAME_NOT_REGISTERED (iaName):"
                + " no active provider offers IA 'sim0' (it is failed: dat.thread.safe must be a Boolean, not String 'true')");
    }

    // --- the static registry --------------------------------------------------------------------

    @Test
    void aStaticEntryMapsAnIaNameToAProviderWithItsParameters() {
        RecordingFactory sim = new RecordingFactory("sim"); // no IA of its own
        register(sim);
        setConf("""
                simA u1.2 nonthreadsafe default sim dat.1.0 "port=1" ""
                simB u1.1 nonthreadsafe default sim dat.1.0 "port=2" ""
                """);
        assertThat(registry.listProviders()).containsExactly(new ProviderInfo("simA", 1, 2, false),
                new ProviderInfo("simB", 1, 1, false));
        registry.openIa("simA").close();
        registry.openIa("simA").close();
        registry.openIa("simB", 8, null, 1, 1, false).close();
        assertThat(sim.calls).containsExactly("init simA [port=1]", "open simA [port=1]", "open simA [port=1]",
                "init simB [port=2]", "open simB [port=2]");
        assertThat(registry.getRuntimeDTO().providers()).allSatisfy(dto -> {
            assertThat(dto.origin()).isEqualTo(ProviderDTO.Origin.STATIC);
            assertThat(dto.state()).isEqualTo(ProviderDTO.State.ACTIVE);
            assertThat(dto.source()).startsWith("dat.conf:");
        });

        setConf("simB u1.1 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n");
        assertThat(sim.calls).as("an entry that leaves is finished: dat_provider_fini").contains("fini simA");
        assertCode(() -> registry.openIa("simA"), DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED);
    }

    @Test
    void aStaticEntryWithoutItsProviderFailsAndBindsWhenItComes() {
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"\" \"\"\nlib u1.2 nonthreadsafe default libdaplofa.so.2 x \"\" \"\"\n");
        RegistryRuntimeDTO runtime = registry.getRuntimeDTO();
        assertThat(runtime.providers()).extracting(ProviderDTO::failureDetail).containsExactly(
                "no provider named 'libdaplofa.so.2' is registered (a dat.conf entry names a provider by its"
                        + " dat.provider.name, or a C library that a provider lists in dat.provider.library); no provider is"
                        + " registered",
                "no provider named 'sim' is registered; no provider is registered");
        assertThat(runtime.providers()).allSatisfy(dto -> {
            assertThat(dto.state()).isEqualTo(ProviderDTO.State.FAILED);
            assertThat(dto.failureReason()).isEqualTo(ProviderDTO.FAILURE_REASON_NO_PROVIDER);
            assertThat(dto.id()).isZero();
        });
        assertThat(registry.listProviders()).isEmpty();
        RecordingFactory sim = new RecordingFactory("sim");
        register(sim);
        assertThat(registry.listProviders()).containsExactly(new ProviderInfo("simA", 1, 2, false));
    }

    @Test
    void anOfedLineBindsToTheProviderOfItsLibraryAtThatProvidersVersion() {
        RecordingFactory verbs = new RecordingFactory("verbs").with(DatProviderConstants.DAT_PROVIDER_LIBRARY,
                new String[] {"libdaplofa.so.2"});
        register(verbs);
        setConf("""
                ofa-v2-ib0 u2.0 nonthreadsafe default /usr/lib64/libdaplofa.so.2 dapl.2.0 "ib0 0" ""
                ofa-v2-mlx4_0-1u u2.0 nonthreadsafe default libdaploucm.so.2 dapl.2.0 "mlx4_0 1" ""
                """);
        assertThat(registry.listProviders()).as("the ucm line names a library no provider serves")
                .containsExactly(new ProviderInfo("ofa-v2-ib0", 1, 2, false));
        registry.openIa("ofa-v2-ib0").close();
        assertThat(verbs.calls).containsExactly("init ofa-v2-ib0 [ib0 0]", "open ofa-v2-ib0 [ib0 0]");
        assertThat(registry.getRuntimeDTO().providers()).extracting(ProviderDTO::iaName, ProviderDTO::state)
                .contains(org.assertj.core.groups.Tuple.tuple("ofa-v2-ib0", ProviderDTO.State.ACTIVE),
                        org.assertj.core.groups.Tuple.tuple("ofa-v2-mlx4_0-1u", ProviderDTO.State.FAILED));
    }

    @Test
    void aStaticEntryMustFitItsProvider() {
        register(new RecordingFactory("sim"));
        setConf("""
                a u1.3 nonthreadsafe default sim v "" ""
                b u2.0 nonthreadsafe default sim v "" ""
                c u1.2 threadsafe default sim v "" ""
                """);
        assertThat(registry.getRuntimeDTO().providers()).extracting(ProviderDTO::failureReason, ProviderDTO::failureDetail)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(ProviderDTO.FAILURE_REASON_INCOMPATIBLE_PROVIDER,
                                "the entry asks for DAT u1.3 but provider 'sim' implements 1.2"),
                        org.assertj.core.groups.Tuple.tuple(ProviderDTO.FAILURE_REASON_INCOMPATIBLE_PROVIDER,
                                "the entry asks for DAT u2.0 but provider 'sim' implements 1.2"),
                        org.assertj.core.groups.Tuple.tuple(ProviderDTO.FAILURE_REASON_INCOMPATIBLE_PROVIDER,
                                "the entry asks for threadsafe but provider 'sim' is not thread safe"));
    }

    @Test
    void aStaticEntryShadowsTheProvidersOwnIaOfTheSameName() {
        RecordingFactory sim = new RecordingFactory("sim", "sim0");
        long id = register(sim);
        setConf("sim0 u1.2 nonthreadsafe default sim v \"configured\" \"\"\n");
        registry.openIa("sim0");
        assertThat(sim.opens).singleElement().extracting(request -> request.instanceData()).isEqualTo("configured");
        assertThat(registry.getRuntimeDTO().providers(ProviderDTO.State.SHADOWED)).singleElement().satisfies(dto -> {
            assertThat(dto.origin()).isEqualTo(ProviderDTO.Origin.DYNAMIC);
            assertThat(dto.id()).isEqualTo(id);
            assertThat(dto.failureDetail()).isEqualTo("shadowed by dat.conf:1 (provider 'sim')");
        });
    }

    @Test
    void aFailedInitFailsTheEntryWithTheProvidersCode() {
        RecordingFactory sim = new RecordingFactory("sim", "sim0");
        register(sim);
        setConf("sim0 u1.2 nonthreadsafe default sim v \"bad=param\" \"\"\n");
        sim.failInit = DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE, null, "bad param");
        assertCode(() -> registry.openIa("sim0"), DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE);
        ProviderDTO failed = registry.getRuntimeDTO().providers(ProviderDTO.State.FAILED).getFirst();
        assertThat(failed.failureReason()).isEqualTo(ProviderDTO.FAILURE_REASON_INIT_FAILED);
        assertThat(failed.failureDetail()).isEqualTo("provider 'sim' failed to initialize IA 'sim0' (dat.conf:1):"
                + " DAT_INVALID_PARAMETER: bad param");
        // the provider's own sim0, shadowed until now, takes over
        registry.openIa("sim0");
        assertThat(sim.opens).singleElement().extracting(request -> request.instanceData()).isEqualTo("");
    }

    @Test
    void changedIaParamsFinishTheOldParametersAndInitializeTheNew() {
        RecordingFactory sim = new RecordingFactory("sim");
        register(sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        registry.openIa("simA").close();
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n");
        registry.openIa("simA").close();
        assertThat(sim.calls).containsExactly("init simA [port=1]", "open simA [port=1]", "fini simA",
                "init simA [port=2]", "open simA [port=2]");
    }

    @Test
    void anEntryThatLeavesWithAnIaOpenIsFinishedAfterTheIaCloses() {
        RecordingFactory sim = new RecordingFactory("sim");
        register(sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        InterfaceAdapter ia = registry.openIa("simA");
        setConf("simB u1.2 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n");
        registry.openIa("simB").close();
        assertThat(sim.calls).as("no fini while an IA opened through the entry is open").containsExactly(
                "init simA [port=1]", "open simA [port=1]", "init simB [port=2]", "open simB [port=2]");
        ia.close();
        registry.openIa("simB").close(); // the registry is not told of closes: its next open or change looks
        assertThat(sim.calls).containsExactly("init simA [port=1]", "open simA [port=1]", "init simB [port=2]",
                "open simB [port=2]", "fini simA", "open simB [port=2]");
        setConf("");
        assertThat(sim.calls).as("each entry finished once").filteredOn(call -> call.startsWith("fini"))
                .containsExactly("fini simA", "fini simB");
    }

    @Test
    void changedIaParamsUnderAnOpenIaFinishTheOldParametersAfterTheIaCloses() {
        RecordingFactory sim = new RecordingFactory("sim");
        register(sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        InterfaceAdapter ia = registry.openIa("simA");
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n");
        assertThat(sim.calls).containsExactly("init simA [port=1]", "open simA [port=1]");
        ia.close();
        registry.openIa("simA").close();
        assertThat(sim.calls).containsExactly("init simA [port=1]", "open simA [port=1]", "fini simA",
                "init simA [port=2]", "open simA [port=2]");
    }

    @Test
    void anInitOfNewIaParamsReplacesTheOldOnesWhoseFiniThenNeverComes() {
        RecordingFactory sim = new RecordingFactory("sim");
        register(sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        InterfaceAdapter ia = registry.openIa("simA");
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n");
        registry.openIa("simA").close(); // init port=2 while an IA of port=1 is open
        ia.close();
        registry.openIa("simA").close();
        // a fini of the old entry here would undo what init port=2 set up: the provider knows only the IA name
        setConf("");
        assertThat(sim.calls).containsExactly("init simA [port=1]", "open simA [port=1]", "init simA [port=2]",
                "open simA [port=2]", "open simA [port=2]", "fini simA");
    }

    @Test
    @Timeout(30)
    void aSlowInitHoldsUpNoOpenOfAnotherIaName() throws Exception {
        CountDownLatch inInit = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RecordingFactory sim = slowInit("port=2", inInit, release);
        register(sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        InterfaceAdapter old = registry.openIa("simA"); // keeps the old entry waiting for its fini
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n"
                + "simB u1.2 nonthreadsafe default sim dat.1.0 \"port=3\" \"\"\n");
        Thread slow = new Thread(() -> registry.openIa("simA").close(), "test-slow-init");
        slow.start();
        assertThat(inInit.await(10, TimeUnit.SECONDS)).as("simA's init is under way").isTrue();
        // neither its init nor the look at the old simA waits for simA's init (which waits 20 s)
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> registry.openIa("simB").close());
        assertThat(sim.calls).contains("init simB [port=3]", "open simB [port=3]").doesNotContain("open simA [port=2]");
        release.countDown();
        slow.join(10_000);
        assertThat(slow.isAlive()).isFalse();
        old.close();
        setConf("");
        assertThat(sim.calls).as("the old simA's fini never comes after the init that replaced it")
                .filteredOn(call -> call.startsWith("fini")).containsExactlyInAnyOrder("fini simA", "fini simB");
    }

    @Test
    void aProviderThatLeavesWithAnIaOpenCleansUpItselfWithoutFini() {
        RecordingFactory sim = new RecordingFactory("sim");
        long id = register(sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"\" \"\"\n");
        InterfaceAdapter ia = registry.openIa("simA");
        registry.unregister(id);
        ia.close();
        register(new RecordingFactory("other", "other0"));
        registry.openIa("other0").close();
        assertThat(sim.calls).containsExactly("init simA []", "open simA []");
    }

    @Test
    void aFiniThatFailsIsTheProvidersAlone() {
        RecordingFactory sim = new RecordingFactory("sim") {
            @Override
            public void fini(ProviderInfo providerInfo) {
                super.fini(providerInfo);
                if (providerInfo.iaName().equals("simA")) {
                    throw new NoClassDefFoundError("dat/provider/gone/Adapter"); // its bundle was refreshed under it
                }
                throw new java.util.ServiceConfigurationError("a plug-in of the provider failed to load"); // an Error of its own
            }
        };
        register(sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n"
                + "simB u1.2 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n");
        InterfaceAdapter ia = registry.openIa("simA");
        setConf("simB u1.2 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n");
        ia.close();
        registry.openIa("simB").close(); // the open that decides simA's fini
        assertThat(sim.calls).contains("fini simA", "open simB [port=2]");
        setConf(""); // the change that decides simB's
        assertThat(sim.calls).contains("fini simB");
    }

    @Test
    void aProviderThatLeavesDuringAnInitGetsItsFiniBeforeItIsReleased() throws Exception {
        CountDownLatch inInit = new CountDownLatch(1);
        CountDownLatch finishInit = new CountDownLatch(1);
        RecordingFactory sim = slowInit("port=1", inInit, finishInit);
        long id = registerRecordingRelease(registry, sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        AtomicReference<DatException> refused = new AtomicReference<>();
        Thread opener = openInBackground(registry, "simA", refused);
        assertThat(inInit.await(10, TimeUnit.SECONDS)).as("simA's init is under way").isTrue();
        Thread leaving = new Thread(() -> registry.unregister(id), "test-unregister");
        leaving.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (registry.listProviders().stream().anyMatch(info -> info.iaName().equals("simA")) && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // until the registration is gone from the view
        }
        finishInit.countDown();
        leaving.join(10_000);
        opener.join(10_000);
        assertThat(refused.get()).as("the open that asked for the init, once its provider left")
                .isNotNull().extracting(DatException::type).isEqualTo(DatReturn.PROVIDER_NOT_FOUND);
        assertThat(sim.calls).as("the fini of what its init set up comes before the registry lets the factory go")
                .containsExactly("init simA [port=1]", "fini simA", "release");
    }

    @Test
    void aProviderThatLeavesWhileItsInitDoesNotReturnIsLetGoAfterTheWait() throws Exception {
        Registry impatient = new Registry(2, Duration.ofMillis(300));
        CountDownLatch inInit = new CountDownLatch(1);
        CountDownLatch finishInit = new CountDownLatch(1);
        RecordingFactory sim = slowInit("port=1", inInit, finishInit);
        long id = registerRecordingRelease(impatient, sim);
        setConf(impatient, "simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        AtomicReference<DatException> refused = new AtomicReference<>();
        Thread opener = openInBackground(impatient, "simA", refused);
        assertThat(inInit.await(10, TimeUnit.SECONDS)).as("simA's init is under way").isTrue();
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
                assertThat(impatient.getRuntimeDTO().providers()).as("listing does not wait for an init")
                        .singleElement().extracting(ProviderDTO::openIas).isEqualTo(0);
                impatient.unregister(id); // waits 300 ms for the init, then gives up its fini
            });
        } finally {
            finishInit.countDown();
            opener.join(10_000);
        }
        assertThat(sim.calls).as("the fini given up, the factory released").containsExactly("init simA [port=1]", "release");
        assertThat(refused.get()).isNotNull().extracting(DatException::type).isEqualTo(DatReturn.PROVIDER_NOT_FOUND);
        assertThat(impatient.setUpLocks()).isZero();
    }

    @Test
    void closeCallsTheFiniDueBeforeItReleasesTheFactories() {
        RecordingFactory sim = new RecordingFactory("sim");
        registerRecordingRelease(registry, sim);
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        registry.openIa("simA").close();
        registry.close();
        assertThat(sim.calls).filteredOn(call -> !call.startsWith("open"))
                .containsExactly("init simA [port=1]", "fini simA", "release");
    }

    @Test
    void providersComingAndGoingLeaveNoSetUpBehind() {
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=1\" \"\"\n");
        for (int i = 0; i < 5; i++) {
            RecordingFactory sim = new RecordingFactory("sim");
            long id = register(sim);
            registry.openIa("simA").close();
            registry.unregister(id);
            assertThat(sim.calls).as("its fini came before it left").contains("fini simA");
        }
        assertThat(registry.setUpLocks()).as("set-up locks of providers that left").isZero();
    }

    @Test
    void aFailedInitBelongsToTheParametersThatFailed() {
        RecordingFactory sim = new RecordingFactory("sim");
        register(sim);
        sim.failInit = DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE, null, "bad port");
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=x\" \"\"\n");
        assertCode(() -> registry.openIa("simA"), DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE);
        sim.failInit = null;
        setConf("simA u1.2 nonthreadsafe default sim dat.1.0 \"port=2\" \"\"\n");
        registry.openIa("simA").close();
        assertThat(sim.calls).containsExactly("init simA [port=x]", "init simA [port=2]", "open simA [port=2]");
    }

    @Test
    void listingFailsWithInternalErrorWhenTheStaticRegistryIsMissing() {
        register(new RecordingFactory("sim", "sim0"));
        registry.setStaticRegistry(StaticRegistry.load("/nonexistent/dat.conf"));
        assertCode(registry::listProviders, DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE);
        assertCode(() -> registry.listProviders(4, new ProviderInfo[4]), DatReturn.INTERNAL_ERROR, DatReturn.NO_SUBTYPE);
        assertThatThrownBy(registry::listProviders)
                .hasMessage("DAT_INTERNAL_ERROR: the static registry /nonexistent/dat.conf is missing: no such file");
        RegistryRuntimeDTO runtime = registry.getRuntimeDTO();
        assertThat(runtime.staticRegistryRead()).isFalse();
        assertThat(runtime.staticRegistryProblems()).containsExactly("/nonexistent/dat.conf: no such file");
        assertThat(registry.openIa("sim0").name()).as("dynamic providers still open").isEqualTo("sim0");
    }

    @Test
    void badStaticLinesAreReportedAndGoodOnesLoad() {
        register(new RecordingFactory("sim"));
        setConf("bad line\nsim0 u1.2 nonthreadsafe default sim v \"\" \"\"\n");
        RegistryRuntimeDTO runtime = registry.getRuntimeDTO();
        assertThat(runtime.staticRegistry()).isEqualTo("dat.conf");
        assertThat(runtime.staticRegistryProblems()).singleElement().asString().startsWith("dat.conf:1: expected 8 fields");
        assertThat(registry.listProviders()).extracting(ProviderInfo::iaName).containsExactly("sim0");
    }

    // --- dat_registry_list_providers ------------------------------------------------------------

    @Test
    void listsIntoAnArrayAsTheManPageSays() {
        register(new RecordingFactory("sim", "sim0", "sim1"));
        ProviderInfo[] list = new ProviderInfo[3];
        assertThat(registry.listProviders(3, list)).isEqualTo(2);
        assertThat(list).containsExactly(new ProviderInfo("sim0", 1, 2, false), new ProviderInfo("sim1", 1, 2, false), null);
        assertCode(() -> registry.listProviders(2, null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        assertCode(() -> registry.listProviders(1, new ProviderInfo[1]), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
        assertCode(() -> registry.listProviders(-1, list), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
        assertCode(() -> registry.listProviders(3, new ProviderInfo[2]), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3);
        assertThatThrownBy(() -> registry.listProviders(1, new ProviderInfo[1])).hasMessage(
                "DAT_INVALID_PARAMETER DAT_INVALID_ARG1 (maxToReturn): 1 is too small: the registry has 2 entries");
    }

    // --- dat_registry_add_provider / remove_provider --------------------------------------------

    @Test
    void addsAndRemovesProvidersProgrammatically() {
        RecordingFactory outside = new RecordingFactory("outside");
        ProviderInfo info = new ProviderInfo("out0", 1, 2, true);
        registry.addProvider(outside, info);
        assertThat(registry.listProviders()).containsExactly(info);
        ProviderDTO dto = registry.getRuntimeDTO().providers().getFirst();
        assertThat(dto.id()).isNegative();
        assertThat(dto.providerName()).isEqualTo("outside");
        assertThat(dto.source()).isEqualTo("addProvider (dat.registry.RecordingFactory)");
        InterfaceAdapter ia = registry.openIa("out0", 8, null, 1, 2, true);

        assertCode(() -> registry.removeProvider(outside, info), DatReturn.PROVIDER_IN_USE, DatReturn.NO_SUBTYPE);
        assertThatThrownBy(() -> registry.removeProvider(outside, info))
                .hasMessage("DAT_PROVIDER_IN_USE (provider): 1 IA opened through it is still open");
        ia.close();
        registry.removeProvider(outside, info);
        assertThat(registry.listProviders()).isEmpty();
        assertCode(() -> registry.removeProvider(outside, info), DatReturn.INVALID_PARAMETER, DatReturn.NO_SUBTYPE);
    }

    @Test
    void addingTheSameIaTwiceIsRefused() {
        RecordingFactory a = new RecordingFactory("a");
        registry.addProvider(a, new ProviderInfo("x0", 1, 2, false));
        assertCode(() -> registry.addProvider(new RecordingFactory("b"), new ProviderInfo("x0", 1, 2, false)),
                DatReturn.PROVIDER_ALREADY_REGISTERED, DatReturn.NO_SUBTYPE);
        register(new RecordingFactory("svc", "svc0"));
        assertCode(() -> registry.addProvider(a, new ProviderInfo("svc0", 1, 2, false)),
                DatReturn.PROVIDER_ALREADY_REGISTERED, DatReturn.NO_SUBTYPE);
        // another version or thread safety is another IA
        registry.addProvider(a, new ProviderInfo("x0", 1, 2, true));
        assertThat(registry.listProviders()).hasSize(3);
    }

    @Test
    void addingChecksItsArgumentsAndTheLimit() {
        RecordingFactory a = new RecordingFactory("a");
        assertCode(() -> registry.addProvider(null, new ProviderInfo("x0", 1, 2, false)), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG1);
        assertCode(() -> registry.addProvider(a, null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        assertCode(() -> registry.removeProvider(null, new ProviderInfo("x0", 1, 2, false)), DatReturn.INVALID_PARAMETER,
                DatReturn.INVALID_ARG1);
        assertCode(() -> registry.removeProvider(a, null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        registry.addProvider(a, new ProviderInfo("x0", 1, 2, false));
        registry.addProvider(a, new ProviderInfo("x1", 1, 2, false));
        assertCode(() -> registry.addProvider(a, new ProviderInfo("x2", 1, 2, false)), DatReturn.INSUFFICIENT_RESOURCES,
                DatReturn.NO_SUBTYPE);
        registry.removeProvider(a, new ProviderInfo("x0", 1, 2, false));
        registry.addProvider(a, new ProviderInfo("x2", 1, 2, false));
    }

    @Test
    void anInvalidProviderInfoIsTheSecondArgument() {
        assertCode(() -> registry.addProvider(new RecordingFactory("a"), new ProviderInfo("RO_AWARE_x0", 1, 2, false)),
                DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2);
        assertThatThrownBy(() -> registry.addProvider(new RecordingFactory("a"), new ProviderInfo("RO_AWARE_x0", 1, 2, false)))
                .hasMessageContaining("(providerInfo)");
        assertCode(() -> registry.addProvider(new RecordingFactory("a").with(DatProviderConstants.DAT_TRANSPORT, 7),
                new ProviderInfo("x0", 1, 2, false)), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
    }

    @Test
    @Timeout(120)
    void removingAndOpeningAtOnceNeverBothSucceed() throws Exception {
        RecordingFactory outside = new RecordingFactory("outside");
        ProviderInfo info = new ProviderInfo("race0", 1, 2, false);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 10000; round++) {
                registry.addProvider(outside, info);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<Boolean> removed = pool.submit(() -> {
                    start.await();
                    try {
                        registry.removeProvider(outside, info);
                        return true;
                    } catch (DatException e) {
                        assertThat(e.type()).isEqualTo(DatReturn.PROVIDER_IN_USE);
                        return false;
                    }
                });
                Future<InterfaceAdapter> opened = pool.submit(() -> {
                    start.await();
                    try {
                        return registry.openIa("race0");
                    } catch (DatException e) {
                        assertThat(e.type()).isEqualTo(DatReturn.PROVIDER_NOT_FOUND);
                        return null;
                    }
                });
                InterfaceAdapter ia = opened.get();
                boolean wasRemoved = removed.get();
                assertThat(wasRemoved && ia != null).as("round %d: removed with an IA opened through it", round).isFalse();
                if (ia != null) {
                    ia.close();
                    registry.removeProvider(outside, info);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aServiceCannotBeRemovedLikeAnAddedProvider() {
        RecordingFactory sim = new RecordingFactory("sim", "sim0");
        register(sim);
        assertCode(() -> registry.removeProvider(sim, new ProviderInfo("sim0", 1, 2, false)), DatReturn.INVALID_PARAMETER,
                DatReturn.NO_SUBTYPE);
    }

    @Test
    void theRegistryHoldsOpenIasOnlyWeakly() throws InterruptedException {
        RecordingFactory outside = new RecordingFactory("outside");
        ProviderInfo info = new ProviderInfo("out0", 1, 2, false);
        registry.addProvider(outside, info);
        WeakReference<InterfaceAdapter> dropped = new WeakReference<>(registry.openIa("out0"));
        for (int i = 0; i < 100 && dropped.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(dropped.get()).as("an IA the consumer dropped is collected").isNull();
        registry.removeProvider(outside, info);
    }

    // --- filters, listeners, DTOs ---------------------------------------------------------------

    @Test
    void findsProvidersByFilterBestFirst() {
        register(new RecordingFactory("sim", "sim0").with(DatProviderConstants.DAT_TRANSPORT, "sim"));
        register(new RecordingFactory("sim", "sim1").with(DatProviderConstants.DAT_TRANSPORT, "sim").with("service.ranking", 3));
        register(new RecordingFactory("verbs", "mlx0").with(DatProviderConstants.DAT_TRANSPORT, "ib"));
        assertThat(registry.findProviders("(dat.transport=sim)")).extracting(ProviderDTO::iaName).containsExactly("sim1", "sim0");
        assertThat(registry.findProviders("(dat.ia.name=" + dat.api.DatRegistry.escapeFilterValue("mlx0") + ")"))
                .extracting(ProviderDTO::providerName).containsExactly("verbs");
        assertThat(registry.findProviders(null)).hasSize(3);
        assertCode(() -> registry.findProviders("(dat.transport=sim"), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
        assertThat(registry.openIaMatching("(dat.transport=ib)").name()).isEqualTo("mlx0");
        assertCode(() -> registry.openIaMatching("(dat.transport=roce)"), DatReturn.PROVIDER_NOT_FOUND,
                DatReturn.NAME_NOT_REGISTERED);
    }

    @Test
    void openIaMatchingOpensTheIaTheFilterMatched() {
        RecordingFactory plain = new RecordingFactory("plain", "x0").with(DatProviderConstants.DAT_TRANSPORT, "a");
        RecordingFactory safe = new RecordingFactory("safe", "x0").with(DatProviderConstants.DAT_TRANSPORT, "b")
                .with(DatProviderConstants.DAT_THREAD_SAFE, true);
        RecordingFactory newer = new RecordingFactory("newer", "x0").with(DatProviderConstants.DAT_TRANSPORT, "c")
                .with(DatProviderConstants.DAT_API_VERSION, "1.3");
        register(plain);
        register(safe);
        register(newer);
        // by name alone (DAT 1.2, not thread safe) each of these would open the plain provider's x0
        registry.openIaMatching("(dat.transport=b)").close();
        registry.openIaMatching("(dat.transport=c)").close();
        assertThat(safe.opens).hasSize(1);
        assertThat(newer.opens).hasSize(1);
        assertThat(plain.opens).isEmpty();
        registry.openIaMatching("(dat.transport=a)").close();
        assertThat(plain.opens).hasSize(1);
    }

    @Test
    void listenersHearArrivalsDeparturesAndTakeOvers() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        DatRegistryListener listener = new DatRegistryListener() {
            @Override
            public void providerAdded(ProviderDTO provider) {
                put(events, "+" + provider.iaName() + " " + provider.providerName());
            }

            @Override
            public void providerRemoved(ProviderDTO provider) {
                put(events, "-" + provider.iaName() + " " + provider.providerName());
            }
        };
        long a = register(new RecordingFactory("a", "dup0"));
        registry.addListener(listener);
        registry.addListener(listener);
        assertThat(events).containsExactly("+dup0 a");
        long b = register(new RecordingFactory("b", "dup0").with("service.ranking", 1));
        assertThat(events).containsExactly("+dup0 a", "-dup0 a", "+dup0 b");
        registry.unregister(b);
        assertThat(events).containsExactly("+dup0 a", "-dup0 a", "+dup0 b", "-dup0 b", "+dup0 a");
        registry.removeListener(listener);
        registry.unregister(a);
        assertThat(events).hasSize(5);
    }

    @Test
    void aFailingListenerDoesNotStopTheOthers() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        registry.addListener(new DatRegistryListener() {
            @Override
            public void providerAdded(ProviderDTO provider) {
                throw new IllegalStateException("listener bug, expected by the test");
            }

            @Override
            public void providerRemoved(ProviderDTO provider) {
            }
        });
        registry.addListener(new DatRegistryListener() {
            @Override
            public void providerAdded(ProviderDTO provider) {
                put(events, provider.iaName());
                if (provider.iaName().equals("a0")) {
                    // a listener may change the registry: its events follow this one
                    registry.addProvider(new RecordingFactory("b"), new ProviderInfo("b0", 1, 2, false));
                }
            }

            @Override
            public void providerRemoved(ProviderDTO provider) {
            }
        });
        register(new RecordingFactory("a", "a0"));
        assertThat(events).containsExactly("a0", "b0");
    }

    @Test
    void theRuntimeDtoDescribesEachProvider() {
        register(new RecordingFactory("sim", "sim0").with(DatProviderConstants.DAT_CAPABILITY, new String[] {"srq"}));
        InterfaceAdapter ia = registry.openIa("sim0");
        ProviderDTO dto = registry.getRuntimeDTO().providers().getFirst();
        assertThat(dto.iaName()).isEqualTo("sim0");
        assertThat(dto.info()).isEqualTo(new ProviderInfo("sim0", 1, 2, false));
        assertThat(dto.providerName()).isEqualTo("sim");
        assertThat(dto.providerVersion()).isEqualTo("1.0");
        assertThat(dto.transport()).isEqualTo("loopback");
        assertThat(dto.origin()).isEqualTo(ProviderDTO.Origin.DYNAMIC);
        assertThat(dto.state()).isEqualTo(ProviderDTO.State.ACTIVE);
        assertThat(dto.failureReason()).isEqualTo(ProviderDTO.FAILURE_REASON_NONE);
        assertThat(dto.openIas()).isEqualTo(1);
        assertThat(dto.properties()).containsEntry("dat.capability", List.of("srq")).containsEntry("dat.thread.safe", false);
        ia.close();
        assertThat(registry.getRuntimeDTO().providers().getFirst().openIas()).isZero();
        assertThat(registry.getRuntimeDTO().staticRegistry()).isEmpty();
        assertThat(registry.getRuntimeDTO().staticRegistryRead()).isTrue();
    }

    // --- hot swap -------------------------------------------------------------------------------

    @Test
    @Timeout(10)
    void nothingBlocksWhileAProviderOpensAndLeaves() throws Exception {
        CountDownLatch inOpen = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RecordingFactory slow = new RecordingFactory("slow", "slow0") {
            @Override
            public InterfaceAdapter openIa(dat.api.spi.IaOpenRequest request) {
                inOpen.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.openIa(request);
            }
        };
        long id = register(slow);
        Thread opener = new Thread(() -> registry.openIa("slow0"), "test-opener");
        opener.start();
        assertThat(inOpen.await(5, TimeUnit.SECONDS)).isTrue();
        // the provider leaves while an open is under way: neither waits for the other
        registry.unregister(id);
        assertThat(registry.listProviders()).isEmpty();
        assertThat(registry.getRuntimeDTO().providers()).isEmpty();
        assertCode(() -> registry.openIa("slow0"), DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED);
        release.countDown();
        opener.join(5000);
        assertThat(opener.isAlive()).isFalse();
    }

    @Test
    @Timeout(30)
    void closingDeliversEveryProviderRemovedWhileAnotherThreadDelivers() throws Exception {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch inCallback = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch removed = new CountDownLatch(2);
        registry.addListener(new DatRegistryListener() {
            @Override
            public void providerAdded(ProviderDTO provider) {
                put(events, "+" + provider.iaName());
                if (provider.iaName().equals("b0")) {
                    inCallback.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void providerRemoved(ProviderDTO provider) {
                put(events, "-" + provider.iaName());
                removed.countDown();
            }
        });
        register(new RecordingFactory("a", "a0"));
        Thread registering = new Thread(() -> register(new RecordingFactory("b", "b0")), "test-registering");
        registering.start();
        assertThat(inCallback.await(10, TimeUnit.SECONDS)).isTrue();
        registry.close(); // the registering thread delivers: close leaves its events to it
        release.countDown();
        assertThat(removed.await(10, TimeUnit.SECONDS)).as("every providerRemoved of the close").isTrue();
        registering.join(10_000);
        assertThat(registering.isAlive()).isFalse();
        register(new RecordingFactory("c", "c0"));
        assertThat(events).as("then nothing").containsExactly("+a0", "+b0", "-a0", "-b0");
    }

    @Test
    void closingTheRegistryFinishesInitializedEntries() {
        RecordingFactory sim = new RecordingFactory("sim");
        register(sim);
        setConf("simA u1.2 nonthreadsafe default sim v \"\" \"\"\nsimB u1.2 nonthreadsafe default sim v \"\" \"\"\n");
        registry.openIa("simA").close();
        registry.close();
        assertThat(sim.calls).containsExactly("init simA []", "open simA []", "fini simA");
        assertThat(registry.getRuntimeDTO().providers()).isEmpty();
        assertCode(() -> registry.addProvider(sim, new ProviderInfo("x", 1, 2, false)), DatReturn.INVALID_STATE,
                DatReturn.NO_SUBTYPE);
    }

    @Test
    void aListenerAddedAfterCloseIsRefused() {
        registry.close();
        assertCode(() -> registry.addListener(new DatRegistryListener() {
            @Override
            public void providerAdded(ProviderDTO provider) {
            }

            @Override
            public void providerRemoved(ProviderDTO provider) {
            }
        }), DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE);
        assertCode(() -> registry.addListener(null), DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG1);
    }
}
