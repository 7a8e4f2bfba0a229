package dat.tests.conformance.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatRegistry;
import dat.api.DatReturn;
import dat.api.EpCreatorForPsp;
import dat.api.IaAttributes;
import dat.api.InterfaceAdapter;
import dat.api.MemoryType;
import dat.api.ProviderAttributes;
import dat.api.ProviderInfo;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import dat.api.spi.IaOpenRequest;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;

/**
 * dat_registry_list_providers(3DAT), dat_registry_add_provider(3DAT),
 * dat_registry_remove_provider(3DAT): the registry as the IA under test's consumers see it, which
 * dapltest never tests. Providers added here are aliases that open the IA under test through the
 * registry, under a fresh IA name that is removed again.
 */
class RegistryTest {

    @ConformanceTest
    @DisplayName("dat_registry_list_providers(3DAT) DAT_SUCCESS: the list names the IA under test with DAT version 1.2")
    void listsIaUnderTest(IaUnderTest t) {
        ProviderInfo info = t.registry().listProviders().stream().filter(p -> p.iaName().equals(t.iaName())).findFirst()
                .orElseThrow(() -> t.failure("the list does not name " + t.iaName()));
        assertThat(info.versionMajor()).as(t.at("dapl_version_major of the listed IA")).isEqualTo(DatConstants.VERSION_MAJOR);
        assertThat(info.versionMinor()).as(t.at("dapl_version_minor of the listed IA")).isEqualTo(DatConstants.VERSION_MINOR);
    }

    @ConformanceTest
    @DisplayName("dat_registry_list_providers(3DAT) DAT_SUCCESS: the provider's dat.capability lists exactly the optional features"
            + " its attributes declare")
    void capabilitiesAreTheDeclaredFeatures(IaUnderTest t) {
        List<String> listed = t.registeredNames(DatProviderConstants.DAT_CAPABILITY).orElse(null);
        t.requireFeasible(listed != null, "the registry has no entry named " + t.iaName() + " with a "
                + DatProviderConstants.DAT_CAPABILITY + " property");
        ProviderAttributes provider = t.provider();
        IaAttributes ia = t.attributes();
        Map<String, Boolean> declared = new LinkedHashMap<>();
        declared.put("rdma.read", ia.maxRdmaReadPerEpIn() > 0 && ia.maxRdmaReadPerEpOut() > 0);
        declared.put("rmr", ia.maxRmrs() > 0);
        declared.put("srq", provider.srqSupported());
        declared.put("srq.watermarks", provider.srqWatermarksSupported() != 0);
        declared.put("ep.recv_query", provider.epRecvInfoSupported() != 0);
        declared.put("psp.provider", provider.epCreator() != EpCreatorForPsp.NEVER);
        declared.put("lmr.shared", provider.lmrMemTypesSupported().contains(MemoryType.SHARED_VIRTUAL));
        declared.forEach((capability, supported) -> assertThat(listed.contains(capability))
                .as(t.at(DatProviderConstants.DAT_CAPABILITY + " " + listed + " lists " + capability + " exactly when the attributes"
                        + " declare it (" + supported + ")"))
                .isEqualTo(supported));
    }

    @ConformanceTest
    @DisplayName("dat_registry_list_providers(3DAT) DAT_SUCCESS: the consumer's array receives the entries and number_entries counts them")
    void listIntoArray(IaUnderTest t) {
        List<ProviderInfo> list = t.registry().listProviders();
        ProviderInfo[] array = new ProviderInfo[list.size() + 4];
        int count = t.registry().listProviders(array.length, array);
        assertThat(count).as(t.at("number_entries")).isEqualTo(list.size());
        assertThat(Arrays.asList(array).subList(0, count)).as(t.at("the entries filled")).containsExactlyInAnyOrderElementsOf(list);
    }

    @ConformanceTest
    @DisplayName("dat_registry_list_providers(3DAT) DAT_SUCCESS: listing has no effect on the registry")
    void listingHasNoEffect(IaUnderTest t) {
        List<ProviderInfo> first = t.registry().listProviders();
        List<ProviderInfo> second = t.registry().listProviders();
        assertThat(second).as(t.at("a second listing")).containsExactlyInAnyOrderElementsOf(first);
    }

    @ConformanceTest
    @DisplayName("dat_registry_list_providers(3DAT) DAT_INVALID_PARAMETER: a provider list too small for the registry")
    void listTooSmall(IaUnderTest t) {
        int size = t.registry().listProviders().size();
        ProviderInfo[] array = new ProviderInfo[size - 1];
        DatException e = t.expectError(DatReturn.INVALID_PARAMETER, "dat_registry_list_providers into " + (size - 1)
                + " entries for " + size + " providers", () -> t.registry().listProviders(array.length, array));
        assertThat(e.getMessage()).as(t.at("the failure says how many entries the registry has (number_entries)")).contains(Integer.toString(size));
    }

    @ConformanceTest
    @DisplayName("dat_registry_list_providers(3DAT) DAT_INVALID_PARAMETER: a NULL provider list")
    void listNull(IaUnderTest t) {
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_registry_list_providers into NULL", () -> t.registry().listProviders(4, null));
    }

    @ConformanceTest
    @DisplayName("dat_registry_add_provider(3DAT) DAT_SUCCESS: a provider added under a new IA name is listed and opens")
    void addProvider(IaUnderTest t) {
        try (Alias alias = new Alias(t)) {
            alias.add();
            assertThat(t.registry().listProviders()).as(t.at("the list after dat_registry_add_provider")).contains(alias.info);
            InterfaceAdapter ia = t.track(t.registry().openIa(alias.info.iaName()));
            ia.createProtectionZone();
        }
    }

    @ConformanceTest
    @DisplayName("dat_registry_add_provider(3DAT) DAT_PROVIDER_ALREADY_REGISTERED: the same IA name added twice")
    void addTwice(IaUnderTest t) {
        try (Alias alias = new Alias(t)) {
            alias.add();
            t.expectError(DatReturn.PROVIDER_ALREADY_REGISTERED, "a second dat_registry_add_provider of " + alias.info.iaName(),
                    () -> t.registry().addProvider(new Alias(t).factory, alias.info));
        }
    }

    @ConformanceTest
    @DisplayName("dat_registry_add_provider(3DAT) DAT_PROVIDER_ALREADY_REGISTERED: the name of the IA under test, already registered")
    void addExistingName(IaUnderTest t) {
        ProviderInfo existing = t.registry().listProviders().stream().filter(p -> p.iaName().equals(t.iaName())).findFirst()
                .orElseThrow(() -> t.failure("the list does not name " + t.iaName()));
        Alias alias = new Alias(t);
        try {
            t.expectError(DatReturn.PROVIDER_ALREADY_REGISTERED, "dat_registry_add_provider of " + t.iaName(),
                    () -> t.registry().addProvider(alias.factory, existing));
        } finally {
            quietlyRemove(t.registry(), alias.factory, existing);
        }
    }

    @ConformanceTest
    @DisplayName("dat_registry_add_provider(3DAT) DAT_INSUFFICIENT_RESOURCES: the registry holds its maximum of added providers")
    void addTooMany(IaUnderTest t) {
        java.util.List<Alias> added = new java.util.ArrayList<>();
        try {
            DatException refusal = null;
            while (added.size() < 2_000 && refusal == null) {
                Alias alias = new Alias(t);
                try {
                    alias.add();
                    added.add(alias);
                } catch (DatException e) {
                    refusal = e;
                }
            }
            t.requireFeasible(refusal != null, "the registry took " + added.size() + " added providers without reaching a maximum");
            t.check(refusal.type() == DatReturn.INSUFFICIENT_RESOURCES, "dat_registry_add_provider after " + added.size()
                    + " providers: expected DAT_INSUFFICIENT_RESOURCES, got " + DatReturn.describe(refusal.code()));
            added.removeLast().close();
            Alias again = new Alias(t);
            again.add();
            added.add(again);
        } finally {
            added.forEach(Alias::close);
        }
    }

    @ConformanceTest
    @DisplayName("dat_registry_add_provider(3DAT) DAT_INVALID_PARAMETER: no provider")
    void addNull(IaUnderTest t) {
        ProviderInfo info = new ProviderInfo(uniqueName(t), DatConstants.VERSION_MAJOR, DatConstants.VERSION_MINOR, false);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_registry_add_provider of a NULL provider", () -> t.registry().addProvider(null, info));
    }

    @ConformanceTest
    @DisplayName("dat_registry_remove_provider(3DAT) DAT_SUCCESS: after removal the IA name no longer opens")
    void removeProvider(IaUnderTest t) {
        Alias alias = new Alias(t);
        alias.add();
        t.registry().removeProvider(alias.factory, alias.info);
        assertThat(t.registry().listProviders()).as(t.at("the list after dat_registry_remove_provider")).doesNotContain(alias.info);
        t.expectError(DatReturn.PROVIDER_NOT_FOUND, "dat_ia_open of a removed IA name", () -> t.track(t.registry().openIa(alias.info.iaName())));
    }

    @ConformanceTest
    @DisplayName("dat_registry_remove_provider(3DAT) DAT_INVALID_PARAMETER: a provider that was not registered")
    void removeUnknown(IaUnderTest t) {
        Alias alias = new Alias(t);
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_registry_remove_provider of a provider never added",
                () -> t.registry().removeProvider(alias.factory, alias.info));
    }

    @ConformanceTest
    @DisplayName("dat_registry_remove_provider(3DAT) DAT_PROVIDER_IN_USE: while an IA opened through the provider is open")
    void removeInUse(IaUnderTest t) {
        try (Alias alias = new Alias(t)) {
            alias.add();
            InterfaceAdapter ia = t.track(t.registry().openIa(alias.info.iaName()));
            t.expectError(DatReturn.PROVIDER_IN_USE, "dat_registry_remove_provider with an open IA",
                    () -> t.registry().removeProvider(alias.factory, alias.info));
            ia.close();
            t.registry().removeProvider(alias.factory, alias.info);
            alias.removed = true;
        }
    }

    private static String uniqueName(IaUnderTest t) {
        return t.iaName() + "-conformance-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void quietlyRemove(DatRegistry registry, DatIaFactory factory, ProviderInfo info) {
        try {
            registry.removeProvider(factory, info);
        } catch (DatException e) {
            // not registered, as the test expects
        }
    }

    /** A provider under a fresh IA name that opens the IA under test through the registry. */
    private static final class Alias implements AutoCloseable {
        final DatRegistry registry;
        final ProviderInfo info;
        final DatIaFactory factory;
        boolean removed;

        Alias(IaUnderTest t) {
            registry = t.registry();
            boolean threadSafe = t.provider().threadSafe();
            info = new ProviderInfo(uniqueName(t), DatConstants.VERSION_MAJOR, DatConstants.VERSION_MINOR, threadSafe);
            String target = t.iaName();
            factory = (IaOpenRequest request) -> registry.openIa(target, request.asyncEvdMinQlen(), request.asyncEvd(),
                    DatConstants.VERSION_MAJOR, DatConstants.VERSION_MINOR, false);
        }

        void add() {
            registry.addProvider(factory, info);
        }

        @Override
        public void close() {
            if (!removed) {
                quietlyRemove(registry, factory, info);
            }
        }
    }
}
