package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The attributes of the provider behind an IA, {@code DAT_PROVIDER_ATTR}, as dat_ia_query(3DAT)
 * returns them: what the provider supports, so that a consumer can adapt, and so that a conformance
 * suite knows what to test and what to skip.
 * 
 * <p>{@code evd_stream_merging_supported[6][6]} is kept as a bit matrix: see
 * {@link #isStreamMergingSupported(int, int)}. The C pair {@code num_provider_specific_attr}/
 * {@code provider_specific_attr} is a Java map.
 *
 * @param providerName the provider's name ({@code provider_name})
 * @param providerVersionMajor the provider's own major version
 * @param providerVersionMinor the provider's own minor version
 * @param daplVersionMajor the DAT API major version implemented ({@code dapl_version_major})
 * @param daplVersionMinor the DAT API minor version implemented ({@code dapl_version_minor})
 * @param lmrMemTypesSupported the memory types dat_lmr_create accepts ({@code lmr_mem_types_supported})
 * @param iovOwnershipOnReturn who owns a posted IOV once the post returns ({@code iov_ownership_on_return})
 * @param qosSupported the {@link Qos} values supported, or-ed ({@code dat_qos_supported})
 * @param completionFlagsSupported the {@link CompletionFlags} supported, or-ed ({@code completion_flags_supported})
 * @param threadSafe whether every operation may be called from several threads at once ({@code is_thread_safe})
 * @param maxPrivateDataSize the most bytes of private data in connect, accept and reject ({@code max_private_data_size})
 * @param supportsMultipath whether {@link ConnectFlags#MULTIPATH} is supported ({@code supports_multipath})
 * @param epCreator whether the provider creates Endpoints for PSPs ({@code ep_creator})
 * @param pzSupport how Protection Zones may be shared ({@code pz_support})
 * @param optimalBufferAlignment the buffer alignment that performs best ({@code optimal_buffer_alignment})
 * @param evdStreamMerging bit {@code 6 * row + column} set when event streams {@code row} and {@code column} (in {@link EvdFlags} order: software, CR, DTO, connection, RMR bind, async) may feed one EVD
 * @param srqSupported whether Shared Receive Queues are supported ({@code srq_supported})
 * @param srqWatermarksSupported the SRQ watermark support: 0 none, else the watermarks supported ({@code srq_watermarks_supported})
 * @param srqEpPzDifferenceSupported whether an Endpoint and its SRQ may have different PZs ({@code srq_ep_pz_difference_supported})
 * @param srqInfoSupported whether dat_srq_query reports the DTO counts: non-zero when it does ({@code srq_info_supported})
 * @param epRecvInfoSupported whether dat_ep_recv_query is supported: non-zero when it is ({@code ep_recv_info_supported})
 * @param lmrSyncRequired whether dat_lmr_sync_rdma_read/write must be called around RDMA ({@code lmr_sync_req})
 * @param dtoAsyncReturnGuaranteed whether a post never completes before it returns ({@code dto_async_return_guaranteed})
 * @param rdmaWriteForRdmaReadRequired whether the target of an RDMA read must have remote write access ({@code rdma_write_for_rdma_read_req})
 * @param providerSpecificAttributes provider-specific named attributes ({@code provider_specific_attr})
 */
@ProviderType
public record ProviderAttributes(
        String providerName,
        int providerVersionMajor,
        int providerVersionMinor,
        int daplVersionMajor,
        int daplVersionMinor,
        java.util.Set<MemoryType> lmrMemTypesSupported,
        IovOwnership iovOwnershipOnReturn,
        int qosSupported,
        int completionFlagsSupported,
        boolean threadSafe,
        int maxPrivateDataSize,
        boolean supportsMultipath,
        EpCreatorForPsp epCreator,
        PzSupport pzSupport,
        int optimalBufferAlignment,
        long evdStreamMerging,
        boolean srqSupported,
        int srqWatermarksSupported,
        boolean srqEpPzDifferenceSupported,
        int srqInfoSupported,
        int epRecvInfoSupported,
        boolean lmrSyncRequired,
        boolean dtoAsyncReturnGuaranteed,
        boolean rdmaWriteForRdmaReadRequired,
        java.util.Map<String, String> providerSpecificAttributes) {

    /**
     * The prefix of a provider-specific attribute by which a provider declares where it departs
     * from a DAT 1.2 manual page, and why: the key is {@code DEVIATION_PREFIX + name} (for example
     * {@code "dat.deviation.max_private_data_size"}), the value says what the provider does
     * instead and why it cannot do what the page says (typically a limit of the transport or the
     * device). A consumer reads it to adapt; the conformance suite checks that the provider then
     * behaves as declared, and reports the test as skipped with the declared reason, never as
     * passed.
     */
    public static final String DEVIATION_PREFIX = "dat.deviation.";

    /** Copies the collections, so the record stays immutable. */
    public ProviderAttributes {
        lmrMemTypesSupported = java.util.Set.copyOf(lmrMemTypesSupported);
        providerSpecificAttributes = java.util.Map.copyOf(providerSpecificAttributes);
    }

    /**
     * Starts a builder with this record's values, to derive a changed copy.
     *
     * @return a builder holding every field of this record
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
            builder.providerName = providerName;
            builder.providerVersionMajor = providerVersionMajor;
            builder.providerVersionMinor = providerVersionMinor;
            builder.daplVersionMajor = daplVersionMajor;
            builder.daplVersionMinor = daplVersionMinor;
            builder.lmrMemTypesSupported = lmrMemTypesSupported;
            builder.iovOwnershipOnReturn = iovOwnershipOnReturn;
            builder.qosSupported = qosSupported;
            builder.completionFlagsSupported = completionFlagsSupported;
            builder.threadSafe = threadSafe;
            builder.maxPrivateDataSize = maxPrivateDataSize;
            builder.supportsMultipath = supportsMultipath;
            builder.epCreator = epCreator;
            builder.pzSupport = pzSupport;
            builder.optimalBufferAlignment = optimalBufferAlignment;
            builder.evdStreamMerging = evdStreamMerging;
            builder.srqSupported = srqSupported;
            builder.srqWatermarksSupported = srqWatermarksSupported;
            builder.srqEpPzDifferenceSupported = srqEpPzDifferenceSupported;
            builder.srqInfoSupported = srqInfoSupported;
            builder.epRecvInfoSupported = epRecvInfoSupported;
            builder.lmrSyncRequired = lmrSyncRequired;
            builder.dtoAsyncReturnGuaranteed = dtoAsyncReturnGuaranteed;
            builder.rdmaWriteForRdmaReadRequired = rdmaWriteForRdmaReadRequired;
            builder.providerSpecificAttributes = providerSpecificAttributes;
        return builder;
    }

    /**
     * Starts a builder with the defaults documented on each setter's field.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Whether two event streams may feed one EVD ({@code evd_stream_merging_supported}).
     *
     * @param evdFlagA one stream, as a single {@link EvdFlags} bit (e.g. {@link EvdFlags#DTO})
     * @param evdFlagB the other stream, as a single {@link EvdFlags} bit
     * @return whether the provider lets them share an EVD
     * @throws IllegalArgumentException if a flag is not a single stream bit
     */
    public boolean isStreamMergingSupported(int evdFlagA, int evdFlagB) {
        int row = streamIndex(evdFlagA);
        int column = streamIndex(evdFlagB);
        return (evdStreamMerging & (1L << (6 * row + column))) != 0;
    }

    /**
     * The bit matrix of {@link #evdStreamMerging()} for the given pairs.
     *
     * @param allowed pairs of single {@link EvdFlags} bits that may share an EVD; each pair is
     *     allowed both ways, and every stream may always share with itself
     * @return the matrix
     */
    public static long streamMerging(int[]... allowed) {
        long matrix = 0;
        for (int i = 0; i < 6; i++) {
            matrix |= 1L << (6 * i + i);
        }
        for (int[] pair : allowed) {
            int a = streamIndex(pair[0]);
            int b = streamIndex(pair[1]);
            matrix |= 1L << (6 * a + b);
            matrix |= 1L << (6 * b + a);
        }
        return matrix;
    }

    private static int streamIndex(int evdFlag) {
        return switch (evdFlag) {
            case EvdFlags.SOFTWARE -> 0;
            case EvdFlags.CR -> 1;
            case EvdFlags.DTO -> 2;
            case EvdFlags.CONNECTION -> 3;
            case EvdFlags.RMR_BIND -> 4;
            case EvdFlags.ASYNC -> 5;
            default -> throw new IllegalArgumentException("not a single event stream flag: 0x" + Integer.toHexString(evdFlag));
        };
    }

    /** Builds a {@link ProviderAttributes}; every field starts at its default. */
    public static final class Builder {
        private String providerName = "";
        private int providerVersionMajor = 0;
        private int providerVersionMinor = 0;
        private int daplVersionMajor = DatConstants.VERSION_MAJOR;
        private int daplVersionMinor = DatConstants.VERSION_MINOR;
        private java.util.Set<MemoryType> lmrMemTypesSupported = java.util.Set.of(MemoryType.VIRTUAL);
        private IovOwnership iovOwnershipOnReturn = IovOwnership.CONSUMER;
        private int qosSupported = Qos.BEST_EFFORT;
        private int completionFlagsSupported = CompletionFlags.DEFAULT;
        private boolean threadSafe = false;
        private int maxPrivateDataSize = 0;
        private boolean supportsMultipath = false;
        private EpCreatorForPsp epCreator = EpCreatorForPsp.NEVER;
        private PzSupport pzSupport = PzSupport.UNIQUE;
        private int optimalBufferAlignment = DatConstants.OPTIMAL_ALIGNMENT;
        private long evdStreamMerging = 0L;
        private boolean srqSupported = false;
        private int srqWatermarksSupported = 0;
        private boolean srqEpPzDifferenceSupported = false;
        private int srqInfoSupported = 0;
        private int epRecvInfoSupported = 0;
        private boolean lmrSyncRequired = false;
        private boolean dtoAsyncReturnGuaranteed = false;
        private boolean rdmaWriteForRdmaReadRequired = false;
        private java.util.Map<String, String> providerSpecificAttributes = java.util.Map.of();

        private Builder() {
        }

        /**
         * Sets {@link ProviderAttributes#providerName()}.
         *
         * @param providerName the provider's name ({@code provider_name})
         * @return this builder
         */
        public Builder providerName(String providerName) {
            this.providerName = providerName;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#providerVersionMajor()}.
         *
         * @param providerVersionMajor the provider's own major version
         * @return this builder
         */
        public Builder providerVersionMajor(int providerVersionMajor) {
            this.providerVersionMajor = providerVersionMajor;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#providerVersionMinor()}.
         *
         * @param providerVersionMinor the provider's own minor version
         * @return this builder
         */
        public Builder providerVersionMinor(int providerVersionMinor) {
            this.providerVersionMinor = providerVersionMinor;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#daplVersionMajor()}.
         *
         * @param daplVersionMajor the DAT API major version implemented ({@code dapl_version_major})
         * @return this builder
         */
        public Builder daplVersionMajor(int daplVersionMajor) {
            this.daplVersionMajor = daplVersionMajor;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#daplVersionMinor()}.
         *
         * @param daplVersionMinor the DAT API minor version implemented ({@code dapl_version_minor})
         * @return this builder
         */
        public Builder daplVersionMinor(int daplVersionMinor) {
            this.daplVersionMinor = daplVersionMinor;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#lmrMemTypesSupported()}.
         *
         * @param lmrMemTypesSupported the memory types dat_lmr_create accepts ({@code lmr_mem_types_supported})
         * @return this builder
         */
        public Builder lmrMemTypesSupported(java.util.Set<MemoryType> lmrMemTypesSupported) {
            this.lmrMemTypesSupported = lmrMemTypesSupported;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#iovOwnershipOnReturn()}.
         *
         * @param iovOwnershipOnReturn who owns a posted IOV once the post returns ({@code iov_ownership_on_return})
         * @return this builder
         */
        public Builder iovOwnershipOnReturn(IovOwnership iovOwnershipOnReturn) {
            this.iovOwnershipOnReturn = iovOwnershipOnReturn;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#qosSupported()}.
         *
         * @param qosSupported the {@link Qos} values supported, or-ed ({@code dat_qos_supported})
         * @return this builder
         */
        public Builder qosSupported(int qosSupported) {
            this.qosSupported = qosSupported;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#completionFlagsSupported()}.
         *
         * @param completionFlagsSupported the {@link CompletionFlags} supported, or-ed ({@code completion_flags_supported})
         * @return this builder
         */
        public Builder completionFlagsSupported(int completionFlagsSupported) {
            this.completionFlagsSupported = completionFlagsSupported;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#threadSafe()}.
         *
         * @param threadSafe whether every operation may be called from several threads at once ({@code is_thread_safe})
         * @return this builder
         */
        public Builder threadSafe(boolean threadSafe) {
            this.threadSafe = threadSafe;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#maxPrivateDataSize()}.
         *
         * @param maxPrivateDataSize the most bytes of private data in connect, accept and reject ({@code max_private_data_size})
         * @return this builder
         */
        public Builder maxPrivateDataSize(int maxPrivateDataSize) {
            this.maxPrivateDataSize = maxPrivateDataSize;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#supportsMultipath()}.
         *
         * @param supportsMultipath whether {@link ConnectFlags#MULTIPATH} is supported ({@code supports_multipath})
         * @return this builder
         */
        public Builder supportsMultipath(boolean supportsMultipath) {
            this.supportsMultipath = supportsMultipath;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#epCreator()}.
         *
         * @param epCreator whether the provider creates Endpoints for PSPs ({@code ep_creator})
         * @return this builder
         */
        public Builder epCreator(EpCreatorForPsp epCreator) {
            this.epCreator = epCreator;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#pzSupport()}.
         *
         * @param pzSupport how Protection Zones may be shared ({@code pz_support})
         * @return this builder
         */
        public Builder pzSupport(PzSupport pzSupport) {
            this.pzSupport = pzSupport;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#optimalBufferAlignment()}.
         *
         * @param optimalBufferAlignment the buffer alignment that performs best ({@code optimal_buffer_alignment})
         * @return this builder
         */
        public Builder optimalBufferAlignment(int optimalBufferAlignment) {
            this.optimalBufferAlignment = optimalBufferAlignment;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#evdStreamMerging()}.
         *
         * @param evdStreamMerging bit {@code 6 * row + column} set when event streams {@code row} and {@code column} (in {@link EvdFlags} order: software, CR, DTO, connection, RMR bind, async) may feed one EVD
         * @return this builder
         */
        public Builder evdStreamMerging(long evdStreamMerging) {
            this.evdStreamMerging = evdStreamMerging;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#srqSupported()}.
         *
         * @param srqSupported whether Shared Receive Queues are supported ({@code srq_supported})
         * @return this builder
         */
        public Builder srqSupported(boolean srqSupported) {
            this.srqSupported = srqSupported;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#srqWatermarksSupported()}.
         *
         * @param srqWatermarksSupported the SRQ watermark support: 0 none, else the watermarks supported ({@code srq_watermarks_supported})
         * @return this builder
         */
        public Builder srqWatermarksSupported(int srqWatermarksSupported) {
            this.srqWatermarksSupported = srqWatermarksSupported;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#srqEpPzDifferenceSupported()}.
         *
         * @param srqEpPzDifferenceSupported whether an Endpoint and its SRQ may have different PZs ({@code srq_ep_pz_difference_supported})
         * @return this builder
         */
        public Builder srqEpPzDifferenceSupported(boolean srqEpPzDifferenceSupported) {
            this.srqEpPzDifferenceSupported = srqEpPzDifferenceSupported;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#srqInfoSupported()}.
         *
         * @param srqInfoSupported whether dat_srq_query reports the DTO counts: non-zero when it does ({@code srq_info_supported})
         * @return this builder
         */
        public Builder srqInfoSupported(int srqInfoSupported) {
            this.srqInfoSupported = srqInfoSupported;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#epRecvInfoSupported()}.
         *
         * @param epRecvInfoSupported whether dat_ep_recv_query is supported: non-zero when it is ({@code ep_recv_info_supported})
         * @return this builder
         */
        public Builder epRecvInfoSupported(int epRecvInfoSupported) {
            this.epRecvInfoSupported = epRecvInfoSupported;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#lmrSyncRequired()}.
         *
         * @param lmrSyncRequired whether dat_lmr_sync_rdma_read/write must be called around RDMA ({@code lmr_sync_req})
         * @return this builder
         */
        public Builder lmrSyncRequired(boolean lmrSyncRequired) {
            this.lmrSyncRequired = lmrSyncRequired;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#dtoAsyncReturnGuaranteed()}.
         *
         * @param dtoAsyncReturnGuaranteed whether a post never completes before it returns ({@code dto_async_return_guaranteed})
         * @return this builder
         */
        public Builder dtoAsyncReturnGuaranteed(boolean dtoAsyncReturnGuaranteed) {
            this.dtoAsyncReturnGuaranteed = dtoAsyncReturnGuaranteed;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#rdmaWriteForRdmaReadRequired()}.
         *
         * @param rdmaWriteForRdmaReadRequired whether the target of an RDMA read must have remote write access ({@code rdma_write_for_rdma_read_req})
         * @return this builder
         */
        public Builder rdmaWriteForRdmaReadRequired(boolean rdmaWriteForRdmaReadRequired) {
            this.rdmaWriteForRdmaReadRequired = rdmaWriteForRdmaReadRequired;
            return this;
        }

        /**
         * Sets {@link ProviderAttributes#providerSpecificAttributes()}.
         *
         * @param providerSpecificAttributes provider-specific named attributes ({@code provider_specific_attr})
         * @return this builder
         */
        public Builder providerSpecificAttributes(java.util.Map<String, String> providerSpecificAttributes) {
            this.providerSpecificAttributes = providerSpecificAttributes;
            return this;
        }

        /**
         * Builds the record.
         *
         * @return the immutable {@link ProviderAttributes}
         */
        public ProviderAttributes build() {
            return new ProviderAttributes(providerName, providerVersionMajor, providerVersionMinor, daplVersionMajor, daplVersionMinor, lmrMemTypesSupported, iovOwnershipOnReturn, qosSupported, completionFlagsSupported, threadSafe, maxPrivateDataSize, supportsMultipath, epCreator, pzSupport, optimalBufferAlignment, evdStreamMerging, srqSupported, srqWatermarksSupported, srqEpPzDifferenceSupported, srqInfoSupported, epRecvInfoSupported, lmrSyncRequired, dtoAsyncReturnGuaranteed, rdmaWriteForRdmaReadRequired, providerSpecificAttributes);
        }
    }
}
