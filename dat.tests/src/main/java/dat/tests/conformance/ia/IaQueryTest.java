package dat.tests.conformance.ia;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatConstants;
import dat.api.DatReturn;
import dat.api.IaAttrMask;
import dat.api.IaAttributes;
import dat.api.InterfaceAdapter;
import dat.api.MemoryType;
import dat.api.ProviderAttrMask;
import dat.api.ProviderAttributes;
import dat.tests.conformance.internal.ConformanceTest;
import dat.tests.conformance.internal.IaUnderTest;
import org.junit.jupiter.api.DisplayName;

/** dat_ia_query(3DAT): the IA and provider attributes. */
class IaQueryTest {

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: the adapter name is the IA name, the API version is 1.2, the limits are positive")
    void attributes(IaUnderTest t) {
        IaAttributes ia = t.attributes();
        ProviderAttributes provider = t.provider();
        assertThat(ia.adapterName()).as(t.at("Adapter name: \"The same as ia_name_ptr\"")).isEqualTo(t.iaName());
        assertThat(provider.daplVersionMajor()).as(t.at("DAPL API version major")).isEqualTo(DatConstants.VERSION_MAJOR);
        assertThat(provider.daplVersionMinor()).as(t.at("DAPL API version minor")).isEqualTo(DatConstants.VERSION_MINOR);
        assertThat(ia.iaAddress()).as(t.at("IA_address_ptr")).isNotNull();
        assertThat(ia.maxEps()).as(t.at("max_eps")).isPositive();
        assertThat(ia.maxDtoPerEp()).as(t.at("max_dto_per_ep")).isPositive();
        assertThat(ia.maxEvds()).as(t.at("max_evds")).isPositive();
        assertThat(ia.maxEvdQlen()).as(t.at("max_evd_qlen")).isPositive();
        assertThat(ia.maxIovSegmentsPerDto()).as(t.at("max_iov_segments_per_dto")).isPositive();
        assertThat(ia.maxLmrs()).as(t.at("max_lmrs")).isPositive();
        assertThat(ia.maxLmrBlockSize()).as(t.at("max_lmr_block_size")).isPositive();
        assertThat(ia.maxPzs()).as(t.at("max_pzs")).isPositive();
        assertThat(ia.maxMessageSize()).as(t.at("max_message_size")).isPositive();
        assertThat(ia.maxRdmaSize()).as(t.at("max_rdma_size")).isPositive();
        assertThat(ia.maxRmrs()).as(t.at("max_rmrs")).isNotNegative();
        assertThat(ia.maxSrqs()).as(t.at("max_srqs")).isNotNegative();
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: max private data size is at least 64 bytes")
    void privateDataSize(IaUnderTest t) {
        int size = t.provider().maxPrivateDataSize();
        if (size > 0 && size < 64 && t.declaredDeviation("max_private_data_size").isPresent()) {
            // ConnectTest and CrTest hold the provider to the smaller limit it declares
            t.skipAsDeclared("max_private_data_size", "max_private_data_size is " + size);
        }
        assertThat(size).as(t.at("Max private data size: \"This value is at least 64 bytes\""))
                .isGreaterThanOrEqualTo(64);
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: the optimal buffer alignment divides DAT_OPTIMAL_ALIGNMENT (256)")
    void optimalAlignment(IaUnderTest t) {
        int alignment = t.provider().optimalBufferAlignment();
        assertThat(alignment).as(t.at("Optimal Buffer Alignment is positive and at most 256")).isBetween(1, DatConstants.OPTIMAL_ALIGNMENT);
        assertThat(DatConstants.OPTIMAL_ALIGNMENT % alignment).as(t.at("DAT_OPTIMAL_ALIGNMENT must be divisible by " + alignment))
                .isZero();
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: LMR memory types include VIRTUAL, LMR and SHARED_VIRTUAL, which all Providers must support")
    void memoryTypes(IaUnderTest t) {
        assertThat(t.provider().lmrMemTypesSupported()).as(t.at("lmr_mem_types_supported"))
                .contains(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL);
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: thread safety agrees with the registry's listing of the IA")
    void threadSafetyListed(IaUnderTest t) {
        assertThat(t.provider().threadSafe()).as(t.at("is_thread_safe against dat_registry_list_providers"))
                .isEqualTo(IaOpenTest.listed(t).threadSafe());
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: the requested attributes are returned whatever the masks select")
    void masks(IaUnderTest t) {
        IaAttributes all = t.attributes();
        var some = t.ia().query(IaAttrMask.IA_MAX_EPS | IaAttrMask.IA_MAX_EVD_QLEN, ProviderAttrMask.PROVIDER_NAME);
        assertThat(some.iaAttributes().maxEps()).as(t.at("max_eps asked for by mask")).isEqualTo(all.maxEps());
        assertThat(some.iaAttributes().maxEvdQlen()).as(t.at("max_evd_qlen asked for by mask")).isEqualTo(all.maxEvdQlen());
        assertThat(some.providerAttributes().providerName()).as(t.at("provider_name asked for by mask"))
                .isEqualTo(t.provider().providerName());
        var none = t.ia().query(IaAttrMask.NONE, ProviderAttrMask.NONE);
        assertThat(none.asyncEvd()).as(t.at("the async EVD handle, returned whatever the masks")).isSameAs(t.ia().query().asyncEvd());
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_SUCCESS: the IA attributes are common to all open instances of the IA")
    void commonToInstances(IaUnderTest t) {
        IaAttributes first = t.attributes();
        IaAttributes second = t.open().query().iaAttributes();
        assertThat(second.adapterName()).as(t.at("adapter name of another instance")).isEqualTo(first.adapterName());
        assertThat(second.maxEps()).as(t.at("max_eps of another instance")).isEqualTo(first.maxEps());
        assertThat(second.maxLmrs()).as(t.at("max_lmrs of another instance")).isEqualTo(first.maxLmrs());
        assertThat(second.maxMessageSize()).as(t.at("max_message_size of another instance")).isEqualTo(first.maxMessageSize());
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_INVALID_PARAMETER: an IA attribute mask with undefined bits")
    void badIaMask(IaUnderTest t) {
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ia_query with ia_attr_mask bit 40",
                () -> t.ia().query(IaAttrMask.ALL | (1L << 40), ProviderAttrMask.ALL));
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_INVALID_PARAMETER: a provider attribute mask with undefined bits")
    void badProviderMask(IaUnderTest t) {
        t.expectError(DatReturn.INVALID_PARAMETER, "dat_ia_query with provider_attr_mask bit 40",
                () -> t.ia().query(IaAttrMask.ALL, ProviderAttrMask.ALL | (1L << 40)));
    }

    @ConformanceTest
    @DisplayName("dat_ia_query(3DAT) DAT_INVALID_HANDLE: a closed IA")
    void closedIa(IaUnderTest t) {
        InterfaceAdapter ia = t.open();
        ia.close();
        t.expectError(DatReturn.INVALID_HANDLE, "dat_ia_query of a closed IA", () -> ia.query());
    }
}
