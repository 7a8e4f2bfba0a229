package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The attributes of an Interface Adapter, {@code DAT_IA_ATTR}, as dat_ia_query(3DAT) returns
 * them. They are common to all open instances of the IA; DAT defines no way to modify them.
 * 
 * <p>The C pairs {@code num_transport_attr}/{@code transport_attr} and
 * {@code num_vendor_attr}/{@code vendor_attr} ({@code DAT_NAMED_ATTR} arrays) are Java maps. Limits
 * the provider does not know are {@link DatConstants#VALUE_UNKNOWN}.
 *
 * @param adapterName the IA name, as opened ({@code adapter_name})
 * @param vendorName the vendor of the IA hardware ({@code vendor_name})
 * @param hardwareVersionMajor major version of the IA hardware
 * @param hardwareVersionMinor minor version of the IA hardware
 * @param firmwareVersionMajor major version of the IA firmware
 * @param firmwareVersionMinor minor version of the IA firmware
 * @param iaAddress the address of the IA ({@code ia_address_ptr}); connect to it with dat_ep_connect
 * @param maxEps the most Endpoints the IA supports, in all states ({@code max_eps})
 * @param maxDtoPerEp the most outstanding DTOs and RMR binds per Endpoint and direction ({@code max_dto_per_ep})
 * @param maxRdmaReadPerEpIn the most outstanding RDMA reads per connected Endpoint with the IA as target
 * @param maxRdmaReadPerEpOut the most outstanding RDMA reads per connected Endpoint with the IA as originator
 * @param maxEvds the most Event Dispatchers ({@code max_evds})
 * @param maxEvdQlen the largest EVD queue ({@code max_evd_qlen})
 * @param maxIovSegmentsPerDto the most IOV entries of a DTO ({@code max_iov_segments_per_dto})
 * @param maxLmrs the most Local Memory Regions ({@code max_lmrs})
 * @param maxLmrBlockSize the largest contiguous block that can be registered ({@code max_lmr_block_size})
 * @param maxLmrVirtualAddress the highest virtual address of an LMR ({@code max_lmr_virtual_address})
 * @param maxPzs the most Protection Zones ({@code max_pzs})
 * @param maxMessageSize the largest message of a send or receive ({@code max_message_size}, formerly {@code max_mtu_size})
 * @param maxRdmaSize the largest RDMA read or write ({@code max_rdma_size})
 * @param maxRmrs the most Remote Memory Regions ({@code max_rmrs})
 * @param maxRmrTargetAddress the highest target address of an RMR ({@code max_rmr_target_address})
 * @param maxSrqs the most Shared Receive Queues; 0 when SRQs are not supported ({@code max_srqs})
 * @param maxEpPerSrq the most Endpoints that share one SRQ ({@code max_ep_per_srq})
 * @param maxRecvPerSrq the most receives posted to one SRQ ({@code max_recv_per_srq})
 * @param maxIovSegmentsPerRdmaRead the most local IOV entries of an RDMA read
 * @param maxIovSegmentsPerRdmaWrite the most local IOV entries of an RDMA write
 * @param maxRdmaReadIn the most outstanding RDMA reads with the IA as target, over all Endpoints
 * @param maxRdmaReadOut the most outstanding RDMA reads with the IA as originator, over all Endpoints
 * @param maxRdmaReadPerEpInGuaranteed whether {@code maxRdmaReadPerEpIn} is guaranteed for every Endpoint
 * @param maxRdmaReadPerEpOutGuaranteed whether {@code maxRdmaReadPerEpOut} is guaranteed for every Endpoint
 * @param transportAttributes transport-specific named attributes ({@code transport_attr})
 * @param vendorAttributes vendor-specific named attributes ({@code vendor_attr})
 */
@ProviderType
public record IaAttributes(
        String adapterName,
        String vendorName,
        int hardwareVersionMajor,
        int hardwareVersionMinor,
        int firmwareVersionMajor,
        int firmwareVersionMinor,
        java.net.InetSocketAddress iaAddress,
        int maxEps,
        int maxDtoPerEp,
        int maxRdmaReadPerEpIn,
        int maxRdmaReadPerEpOut,
        int maxEvds,
        int maxEvdQlen,
        int maxIovSegmentsPerDto,
        int maxLmrs,
        long maxLmrBlockSize,
        long maxLmrVirtualAddress,
        int maxPzs,
        long maxMessageSize,
        long maxRdmaSize,
        int maxRmrs,
        long maxRmrTargetAddress,
        int maxSrqs,
        int maxEpPerSrq,
        int maxRecvPerSrq,
        int maxIovSegmentsPerRdmaRead,
        int maxIovSegmentsPerRdmaWrite,
        int maxRdmaReadIn,
        int maxRdmaReadOut,
        boolean maxRdmaReadPerEpInGuaranteed,
        boolean maxRdmaReadPerEpOutGuaranteed,
        java.util.Map<String, String> transportAttributes,
        java.util.Map<String, String> vendorAttributes) {

    /** Copies the maps, so the record stays immutable. */
    public IaAttributes {
        transportAttributes = java.util.Map.copyOf(transportAttributes);
        vendorAttributes = java.util.Map.copyOf(vendorAttributes);
    }

    /**
     * Starts a builder with this record's values, to derive a changed copy.
     *
     * @return a builder holding every field of this record
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
            builder.adapterName = adapterName;
            builder.vendorName = vendorName;
            builder.hardwareVersionMajor = hardwareVersionMajor;
            builder.hardwareVersionMinor = hardwareVersionMinor;
            builder.firmwareVersionMajor = firmwareVersionMajor;
            builder.firmwareVersionMinor = firmwareVersionMinor;
            builder.iaAddress = iaAddress;
            builder.maxEps = maxEps;
            builder.maxDtoPerEp = maxDtoPerEp;
            builder.maxRdmaReadPerEpIn = maxRdmaReadPerEpIn;
            builder.maxRdmaReadPerEpOut = maxRdmaReadPerEpOut;
            builder.maxEvds = maxEvds;
            builder.maxEvdQlen = maxEvdQlen;
            builder.maxIovSegmentsPerDto = maxIovSegmentsPerDto;
            builder.maxLmrs = maxLmrs;
            builder.maxLmrBlockSize = maxLmrBlockSize;
            builder.maxLmrVirtualAddress = maxLmrVirtualAddress;
            builder.maxPzs = maxPzs;
            builder.maxMessageSize = maxMessageSize;
            builder.maxRdmaSize = maxRdmaSize;
            builder.maxRmrs = maxRmrs;
            builder.maxRmrTargetAddress = maxRmrTargetAddress;
            builder.maxSrqs = maxSrqs;
            builder.maxEpPerSrq = maxEpPerSrq;
            builder.maxRecvPerSrq = maxRecvPerSrq;
            builder.maxIovSegmentsPerRdmaRead = maxIovSegmentsPerRdmaRead;
            builder.maxIovSegmentsPerRdmaWrite = maxIovSegmentsPerRdmaWrite;
            builder.maxRdmaReadIn = maxRdmaReadIn;
            builder.maxRdmaReadOut = maxRdmaReadOut;
            builder.maxRdmaReadPerEpInGuaranteed = maxRdmaReadPerEpInGuaranteed;
            builder.maxRdmaReadPerEpOutGuaranteed = maxRdmaReadPerEpOutGuaranteed;
            builder.transportAttributes = transportAttributes;
            builder.vendorAttributes = vendorAttributes;
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

    /** Builds a {@link IaAttributes}; every field starts at its default. */
    public static final class Builder {
        private String adapterName = "";
        private String vendorName = "";
        private int hardwareVersionMajor = 0;
        private int hardwareVersionMinor = 0;
        private int firmwareVersionMajor = 0;
        private int firmwareVersionMinor = 0;
        private java.net.InetSocketAddress iaAddress = null;
        private int maxEps = 0;
        private int maxDtoPerEp = 0;
        private int maxRdmaReadPerEpIn = 0;
        private int maxRdmaReadPerEpOut = 0;
        private int maxEvds = 0;
        private int maxEvdQlen = 0;
        private int maxIovSegmentsPerDto = 0;
        private int maxLmrs = 0;
        private long maxLmrBlockSize = 0;
        private long maxLmrVirtualAddress = 0;
        private int maxPzs = 0;
        private long maxMessageSize = 0;
        private long maxRdmaSize = 0;
        private int maxRmrs = 0;
        private long maxRmrTargetAddress = 0;
        private int maxSrqs = 0;
        private int maxEpPerSrq = 0;
        private int maxRecvPerSrq = 0;
        private int maxIovSegmentsPerRdmaRead = 0;
        private int maxIovSegmentsPerRdmaWrite = 0;
        private int maxRdmaReadIn = 0;
        private int maxRdmaReadOut = 0;
        private boolean maxRdmaReadPerEpInGuaranteed = false;
        private boolean maxRdmaReadPerEpOutGuaranteed = false;
        private java.util.Map<String, String> transportAttributes = java.util.Map.of();
        private java.util.Map<String, String> vendorAttributes = java.util.Map.of();

        private Builder() {
        }

        /**
         * Sets {@link IaAttributes#adapterName()}.
         *
         * @param adapterName the IA name, as opened ({@code adapter_name})
         * @return this builder
         */
        public Builder adapterName(String adapterName) {
            this.adapterName = adapterName;
            return this;
        }

        /**
         * Sets {@link IaAttributes#vendorName()}.
         *
         * @param vendorName the vendor of the IA hardware ({@code vendor_name})
         * @return this builder
         */
        public Builder vendorName(String vendorName) {
            this.vendorName = vendorName;
            return this;
        }

        /**
         * Sets {@link IaAttributes#hardwareVersionMajor()}.
         *
         * @param hardwareVersionMajor major version of the IA hardware
         * @return this builder
         */
        public Builder hardwareVersionMajor(int hardwareVersionMajor) {
            this.hardwareVersionMajor = hardwareVersionMajor;
            return this;
        }

        /**
         * Sets {@link IaAttributes#hardwareVersionMinor()}.
         *
         * @param hardwareVersionMinor minor version of the IA hardware
         * @return this builder
         */
        public Builder hardwareVersionMinor(int hardwareVersionMinor) {
            this.hardwareVersionMinor = hardwareVersionMinor;
            return this;
        }

        /**
         * Sets {@link IaAttributes#firmwareVersionMajor()}.
         *
         * @param firmwareVersionMajor major version of the IA firmware
         * @return this builder
         */
        public Builder firmwareVersionMajor(int firmwareVersionMajor) {
            this.firmwareVersionMajor = firmwareVersionMajor;
            return this;
        }

        /**
         * Sets {@link IaAttributes#firmwareVersionMinor()}.
         *
         * @param firmwareVersionMinor minor version of the IA firmware
         * @return this builder
         */
        public Builder firmwareVersionMinor(int firmwareVersionMinor) {
            this.firmwareVersionMinor = firmwareVersionMinor;
            return this;
        }

        /**
         * Sets {@link IaAttributes#iaAddress()}.
         *
         * @param iaAddress the address of the IA ({@code ia_address_ptr}); connect to it with dat_ep_connect
         * @return this builder
         */
        public Builder iaAddress(java.net.InetSocketAddress iaAddress) {
            this.iaAddress = iaAddress;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxEps()}.
         *
         * @param maxEps the most Endpoints the IA supports, in all states ({@code max_eps})
         * @return this builder
         */
        public Builder maxEps(int maxEps) {
            this.maxEps = maxEps;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxDtoPerEp()}.
         *
         * @param maxDtoPerEp the most outstanding DTOs and RMR binds per Endpoint and direction ({@code max_dto_per_ep})
         * @return this builder
         */
        public Builder maxDtoPerEp(int maxDtoPerEp) {
            this.maxDtoPerEp = maxDtoPerEp;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRdmaReadPerEpIn()}.
         *
         * @param maxRdmaReadPerEpIn the most outstanding RDMA reads per connected Endpoint with the IA as target
         * @return this builder
         */
        public Builder maxRdmaReadPerEpIn(int maxRdmaReadPerEpIn) {
            this.maxRdmaReadPerEpIn = maxRdmaReadPerEpIn;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRdmaReadPerEpOut()}.
         *
         * @param maxRdmaReadPerEpOut the most outstanding RDMA reads per connected Endpoint with the IA as originator
         * @return this builder
         */
        public Builder maxRdmaReadPerEpOut(int maxRdmaReadPerEpOut) {
            this.maxRdmaReadPerEpOut = maxRdmaReadPerEpOut;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxEvds()}.
         *
         * @param maxEvds the most Event Dispatchers ({@code max_evds})
         * @return this builder
         */
        public Builder maxEvds(int maxEvds) {
            this.maxEvds = maxEvds;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxEvdQlen()}.
         *
         * @param maxEvdQlen the largest EVD queue ({@code max_evd_qlen})
         * @return this builder
         */
        public Builder maxEvdQlen(int maxEvdQlen) {
            this.maxEvdQlen = maxEvdQlen;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxIovSegmentsPerDto()}.
         *
         * @param maxIovSegmentsPerDto the most IOV entries of a DTO ({@code max_iov_segments_per_dto})
         * @return this builder
         */
        public Builder maxIovSegmentsPerDto(int maxIovSegmentsPerDto) {
            this.maxIovSegmentsPerDto = maxIovSegmentsPerDto;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxLmrs()}.
         *
         * @param maxLmrs the most Local Memory Regions ({@code max_lmrs})
         * @return this builder
         */
        public Builder maxLmrs(int maxLmrs) {
            this.maxLmrs = maxLmrs;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxLmrBlockSize()}.
         *
         * @param maxLmrBlockSize the largest contiguous block that can be registered ({@code max_lmr_block_size})
         * @return this builder
         */
        public Builder maxLmrBlockSize(long maxLmrBlockSize) {
            this.maxLmrBlockSize = maxLmrBlockSize;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxLmrVirtualAddress()}.
         *
         * @param maxLmrVirtualAddress the highest virtual address of an LMR ({@code max_lmr_virtual_address})
         * @return this builder
         */
        public Builder maxLmrVirtualAddress(long maxLmrVirtualAddress) {
            this.maxLmrVirtualAddress = maxLmrVirtualAddress;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxPzs()}.
         *
         * @param maxPzs the most Protection Zones ({@code max_pzs})
         * @return this builder
         */
        public Builder maxPzs(int maxPzs) {
            this.maxPzs = maxPzs;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxMessageSize()}.
         *
         * @param maxMessageSize the largest message of a send or receive ({@code max_message_size}, formerly {@code max_mtu_size})
         * @return this builder
         */
        public Builder maxMessageSize(long maxMessageSize) {
            this.maxMessageSize = maxMessageSize;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRdmaSize()}.
         *
         * @param maxRdmaSize the largest RDMA read or write ({@code max_rdma_size})
         * @return this builder
         */
        public Builder maxRdmaSize(long maxRdmaSize) {
            this.maxRdmaSize = maxRdmaSize;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRmrs()}.
         *
         * @param maxRmrs the most Remote Memory Regions ({@code max_rmrs})
         * @return this builder
         */
        public Builder maxRmrs(int maxRmrs) {
            this.maxRmrs = maxRmrs;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRmrTargetAddress()}.
         *
         * @param maxRmrTargetAddress the highest target address of an RMR ({@code max_rmr_target_address})
         * @return this builder
         */
        public Builder maxRmrTargetAddress(long maxRmrTargetAddress) {
            this.maxRmrTargetAddress = maxRmrTargetAddress;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxSrqs()}.
         *
         * @param maxSrqs the most Shared Receive Queues; 0 when SRQs are not supported ({@code max_srqs})
         * @return this builder
         */
        public Builder maxSrqs(int maxSrqs) {
            this.maxSrqs = maxSrqs;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxEpPerSrq()}.
         *
         * @param maxEpPerSrq the most Endpoints that share one SRQ ({@code max_ep_per_srq})
         * @return this builder
         */
        public Builder maxEpPerSrq(int maxEpPerSrq) {
            this.maxEpPerSrq = maxEpPerSrq;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRecvPerSrq()}.
         *
         * @param maxRecvPerSrq the most receives posted to one SRQ ({@code max_recv_per_srq})
         * @return this builder
         */
        public Builder maxRecvPerSrq(int maxRecvPerSrq) {
            this.maxRecvPerSrq = maxRecvPerSrq;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxIovSegmentsPerRdmaRead()}.
         *
         * @param maxIovSegmentsPerRdmaRead the most local IOV entries of an RDMA read
         * @return this builder
         */
        public Builder maxIovSegmentsPerRdmaRead(int maxIovSegmentsPerRdmaRead) {
            this.maxIovSegmentsPerRdmaRead = maxIovSegmentsPerRdmaRead;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxIovSegmentsPerRdmaWrite()}.
         *
         * @param maxIovSegmentsPerRdmaWrite the most local IOV entries of an RDMA write
         * @return this builder
         */
        public Builder maxIovSegmentsPerRdmaWrite(int maxIovSegmentsPerRdmaWrite) {
            this.maxIovSegmentsPerRdmaWrite = maxIovSegmentsPerRdmaWrite;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRdmaReadIn()}.
         *
         * @param maxRdmaReadIn the most outstanding RDMA reads with the IA as target, over all Endpoints
         * @return this builder
         */
        public Builder maxRdmaReadIn(int maxRdmaReadIn) {
            this.maxRdmaReadIn = maxRdmaReadIn;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRdmaReadOut()}.
         *
         * @param maxRdmaReadOut the most outstanding RDMA reads with the IA as originator, over all Endpoints
         * @return this builder
         */
        public Builder maxRdmaReadOut(int maxRdmaReadOut) {
            this.maxRdmaReadOut = maxRdmaReadOut;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRdmaReadPerEpInGuaranteed()}.
         *
         * @param maxRdmaReadPerEpInGuaranteed whether {@code maxRdmaReadPerEpIn} is guaranteed for every Endpoint
         * @return this builder
         */
        public Builder maxRdmaReadPerEpInGuaranteed(boolean maxRdmaReadPerEpInGuaranteed) {
            this.maxRdmaReadPerEpInGuaranteed = maxRdmaReadPerEpInGuaranteed;
            return this;
        }

        /**
         * Sets {@link IaAttributes#maxRdmaReadPerEpOutGuaranteed()}.
         *
         * @param maxRdmaReadPerEpOutGuaranteed whether {@code maxRdmaReadPerEpOut} is guaranteed for every Endpoint
         * @return this builder
         */
        public Builder maxRdmaReadPerEpOutGuaranteed(boolean maxRdmaReadPerEpOutGuaranteed) {
            this.maxRdmaReadPerEpOutGuaranteed = maxRdmaReadPerEpOutGuaranteed;
            return this;
        }

        /**
         * Sets {@link IaAttributes#transportAttributes()}.
         *
         * @param transportAttributes transport-specific named attributes ({@code transport_attr})
         * @return this builder
         */
        public Builder transportAttributes(java.util.Map<String, String> transportAttributes) {
            this.transportAttributes = transportAttributes;
            return this;
        }

        /**
         * Sets {@link IaAttributes#vendorAttributes()}.
         *
         * @param vendorAttributes vendor-specific named attributes ({@code vendor_attr})
         * @return this builder
         */
        public Builder vendorAttributes(java.util.Map<String, String> vendorAttributes) {
            this.vendorAttributes = vendorAttributes;
            return this;
        }

        /**
         * Builds the record.
         *
         * @return the immutable {@link IaAttributes}
         */
        public IaAttributes build() {
            return new IaAttributes(adapterName, vendorName, hardwareVersionMajor, hardwareVersionMinor, firmwareVersionMajor, firmwareVersionMinor, iaAddress, maxEps, maxDtoPerEp, maxRdmaReadPerEpIn, maxRdmaReadPerEpOut, maxEvds, maxEvdQlen, maxIovSegmentsPerDto, maxLmrs, maxLmrBlockSize, maxLmrVirtualAddress, maxPzs, maxMessageSize, maxRdmaSize, maxRmrs, maxRmrTargetAddress, maxSrqs, maxEpPerSrq, maxRecvPerSrq, maxIovSegmentsPerRdmaRead, maxIovSegmentsPerRdmaWrite, maxRdmaReadIn, maxRdmaReadOut, maxRdmaReadPerEpInGuaranteed, maxRdmaReadPerEpOutGuaranteed, transportAttributes, vendorAttributes);
        }
    }
}
