package dat.registry.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.DatException;
import dat.api.DatRegistryListener;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.InterfaceAdapter;
import dat.api.ProviderDTO;
import dat.api.ProviderInfo;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatProviderConstants;
import dat.registry.RecordingFactory;
import java.lang.ref.WeakReference;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The registry's semantics without a framework: dat_ia_open matching and its codes,
 * dat_registry_add/remove/list_providers and theirs, ranking and shadowing, listeners, filters,
 * runtime DTOs and the hot swap; the static registry is {@link StaticEntryTest}'s.
 */
class RegistryTest extends RegistryFixture {

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
