package dat.registry.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatProviderConstants;
import dat.registry.RecordingFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The static registry (dat.conf) without a framework: an entry binds an IA name to a provider and
 * its parameters, fails without a fitting provider and binds when one comes, shadows the provider's
 * own IA of the name, and is initialized (dat_provider_init) and finished (dat_provider_fini) as it
 * comes and goes.
 */
class StaticEntryTest extends RegistryFixture {

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
}
