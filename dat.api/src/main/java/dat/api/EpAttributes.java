package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The attributes of an Endpoint, {@code DAT_EP_ATTR}: what the consumer asks of it at
 * dat_ep_create(3DAT), and what dat_ep_query(3DAT) reports. A provider fills attributes the consumer
 * did not set (pass {@code null} to create) with its defaults; see dat_ep_modify(3DAT) for which
 * attributes may change in which state.
 * 
 * <p>Counts that are not set are 0 here; pass {@link #providerDefaults()} or {@code null} to let the
 * provider choose. The C pairs of transport- and provider-specific {@code DAT_NAMED_ATTR} arrays are
 * Java maps.
 *
 * @param serviceType the service type; DAT 1.2 has reliable connections only
 * @param maxMessageSize the largest send or receive message ({@code max_message_size})
 * @param maxRdmaSize the largest RDMA read or write ({@code max_rdma_size})
 * @param qos the requested {@link Qos}
 * @param recvCompletionFlags the {@link CompletionFlags} receive posts may use ({@code recv_completion_flags})
 * @param requestCompletionFlags the {@link CompletionFlags} request posts may use ({@code request_completion_flags})
 * @param maxRecvDtos the most outstanding receives ({@code max_recv_dtos})
 * @param maxRequestDtos the most outstanding sends, RDMA operations and RMR binds ({@code max_request_dtos})
 * @param maxRecvIov the most IOV entries of a receive ({@code max_recv_iov})
 * @param maxRequestIov the most IOV entries of a send ({@code max_request_iov})
 * @param maxRdmaReadIn the most outstanding RDMA reads with this Endpoint as target ({@code max_rdma_read_in})
 * @param maxRdmaReadOut the most outstanding RDMA reads this Endpoint originates ({@code max_rdma_read_out})
 * @param srqSoftHighWatermark the soft high watermark of receives taken from the SRQ ({@code srq_soft_hw})
 * @param maxRdmaReadIov the most local IOV entries of an RDMA read ({@code max_rdma_read_iov})
 * @param maxRdmaWriteIov the most local IOV entries of an RDMA write ({@code max_rdma_write_iov})
 * @param transportSpecific transport-specific attributes ({@code ep_transport_specific})
 * @param providerSpecific provider-specific attributes ({@code ep_provider_specific})
 */
@ProviderType
public record EpAttributes(
        ServiceType serviceType,
        long maxMessageSize,
        long maxRdmaSize,
        int qos,
        int recvCompletionFlags,
        int requestCompletionFlags,
        int maxRecvDtos,
        int maxRequestDtos,
        int maxRecvIov,
        int maxRequestIov,
        int maxRdmaReadIn,
        int maxRdmaReadOut,
        int srqSoftHighWatermark,
        int maxRdmaReadIov,
        int maxRdmaWriteIov,
        java.util.Map<String, String> transportSpecific,
        java.util.Map<String, String> providerSpecific) {

    /** Copies the maps, so the record stays immutable. */
    public EpAttributes {
        java.util.Objects.requireNonNull(serviceType, "serviceType");
        transportSpecific = java.util.Map.copyOf(transportSpecific);
        providerSpecific = java.util.Map.copyOf(providerSpecific);
    }

    /**
     * This record with the fields an {@link EpParamMask} names taken from {@code requested}: the
     * attributes dat_ep_modify(3DAT) asks for, before the provider checks and adjusts them. Bits
     * that name no attribute (the handles, the state) are ignored here.
     *
     * @param requested the attributes to take the masked fields from
     * @param epParamMask {@link EpParamMask} bits
     * @return the merged attributes
     */
    public EpAttributes withMasked(EpAttributes requested, long epParamMask) {
        java.util.Objects.requireNonNull(requested, "requested");
        Builder b = toBuilder();
        if ((epParamMask & EpParamMask.EP_ATTR_SERVICE_TYPE) != 0) {
            b.serviceType(requested.serviceType());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_MESSAGE_SIZE) != 0) {
            b.maxMessageSize(requested.maxMessageSize());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_RDMA_SIZE) != 0) {
            b.maxRdmaSize(requested.maxRdmaSize());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_QOS) != 0) {
            b.qos(requested.qos());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_RECV_COMPLETION_FLAGS) != 0) {
            b.recvCompletionFlags(requested.recvCompletionFlags());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_REQUEST_COMPLETION_FLAGS) != 0) {
            b.requestCompletionFlags(requested.requestCompletionFlags());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_RECV_DTOS) != 0) {
            b.maxRecvDtos(requested.maxRecvDtos());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_REQUEST_DTOS) != 0) {
            b.maxRequestDtos(requested.maxRequestDtos());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_RECV_IOV) != 0) {
            b.maxRecvIov(requested.maxRecvIov());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_REQUEST_IOV) != 0) {
            b.maxRequestIov(requested.maxRequestIov());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_RDMA_READ_IN) != 0) {
            b.maxRdmaReadIn(requested.maxRdmaReadIn());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_RDMA_READ_OUT) != 0) {
            b.maxRdmaReadOut(requested.maxRdmaReadOut());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_SRQ_SOFT_HW) != 0) {
            b.srqSoftHighWatermark(requested.srqSoftHighWatermark());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_RDMA_READ_IOV) != 0) {
            b.maxRdmaReadIov(requested.maxRdmaReadIov());
        }
        if ((epParamMask & EpParamMask.EP_ATTR_MAX_RDMA_WRITE_IOV) != 0) {
            b.maxRdmaWriteIov(requested.maxRdmaWriteIov());
        }
        if ((epParamMask & (EpParamMask.EP_ATTR_NUM_TRANSPORT_ATTR | EpParamMask.EP_ATTR_TRANSPORT_SPECIFIC_ATTR)) != 0) {
            b.transportSpecific(requested.transportSpecific());
        }
        if ((epParamMask & (EpParamMask.EP_ATTR_NUM_PROVIDER_ATTR | EpParamMask.EP_ATTR_PROVIDER_SPECIFIC_ATTR)) != 0) {
            b.providerSpecific(requested.providerSpecific());
        }
        return b.build();
    }

    /**
     * Starts a builder with this record's values, to derive a changed copy.
     *
     * @return a builder holding every field of this record
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
            builder.serviceType = serviceType;
            builder.maxMessageSize = maxMessageSize;
            builder.maxRdmaSize = maxRdmaSize;
            builder.qos = qos;
            builder.recvCompletionFlags = recvCompletionFlags;
            builder.requestCompletionFlags = requestCompletionFlags;
            builder.maxRecvDtos = maxRecvDtos;
            builder.maxRequestDtos = maxRequestDtos;
            builder.maxRecvIov = maxRecvIov;
            builder.maxRequestIov = maxRequestIov;
            builder.maxRdmaReadIn = maxRdmaReadIn;
            builder.maxRdmaReadOut = maxRdmaReadOut;
            builder.srqSoftHighWatermark = srqSoftHighWatermark;
            builder.maxRdmaReadIov = maxRdmaReadIov;
            builder.maxRdmaWriteIov = maxRdmaWriteIov;
            builder.transportSpecific = transportSpecific;
            builder.providerSpecific = providerSpecific;
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
     * Attributes that ask for the provider's defaults everywhere, as {@code NULL} does in C.
     *
     * @return all-default attributes
     */
    public static EpAttributes providerDefaults() {
        return builder().build();
    }

    /** Builds a {@link EpAttributes}; every field starts at its default. */
    public static final class Builder {
        private ServiceType serviceType = ServiceType.RC;
        private long maxMessageSize = 0;
        private long maxRdmaSize = 0;
        private int qos = Qos.BEST_EFFORT;
        private int recvCompletionFlags = CompletionFlags.DEFAULT;
        private int requestCompletionFlags = CompletionFlags.DEFAULT;
        private int maxRecvDtos = 0;
        private int maxRequestDtos = 0;
        private int maxRecvIov = 0;
        private int maxRequestIov = 0;
        private int maxRdmaReadIn = 0;
        private int maxRdmaReadOut = 0;
        private int srqSoftHighWatermark = DatConstants.HW_DEFAULT;
        private int maxRdmaReadIov = 0;
        private int maxRdmaWriteIov = 0;
        private java.util.Map<String, String> transportSpecific = java.util.Map.of();
        private java.util.Map<String, String> providerSpecific = java.util.Map.of();

        private Builder() {
        }

        /**
         * Sets {@link EpAttributes#serviceType()}.
         *
         * @param serviceType the service type; DAT 1.2 has reliable connections only
         * @return this builder
         */
        public Builder serviceType(ServiceType serviceType) {
            this.serviceType = serviceType;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxMessageSize()}.
         *
         * @param maxMessageSize the largest send or receive message ({@code max_message_size})
         * @return this builder
         */
        public Builder maxMessageSize(long maxMessageSize) {
            this.maxMessageSize = maxMessageSize;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRdmaSize()}.
         *
         * @param maxRdmaSize the largest RDMA read or write ({@code max_rdma_size})
         * @return this builder
         */
        public Builder maxRdmaSize(long maxRdmaSize) {
            this.maxRdmaSize = maxRdmaSize;
            return this;
        }

        /**
         * Sets {@link EpAttributes#qos()}.
         *
         * @param qos the requested {@link Qos}
         * @return this builder
         */
        public Builder qos(int qos) {
            this.qos = qos;
            return this;
        }

        /**
         * Sets {@link EpAttributes#recvCompletionFlags()}.
         *
         * @param recvCompletionFlags the {@link CompletionFlags} receive posts may use ({@code recv_completion_flags})
         * @return this builder
         */
        public Builder recvCompletionFlags(int recvCompletionFlags) {
            this.recvCompletionFlags = recvCompletionFlags;
            return this;
        }

        /**
         * Sets {@link EpAttributes#requestCompletionFlags()}.
         *
         * @param requestCompletionFlags the {@link CompletionFlags} request posts may use ({@code request_completion_flags})
         * @return this builder
         */
        public Builder requestCompletionFlags(int requestCompletionFlags) {
            this.requestCompletionFlags = requestCompletionFlags;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRecvDtos()}.
         *
         * @param maxRecvDtos the most outstanding receives ({@code max_recv_dtos})
         * @return this builder
         */
        public Builder maxRecvDtos(int maxRecvDtos) {
            this.maxRecvDtos = maxRecvDtos;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRequestDtos()}.
         *
         * @param maxRequestDtos the most outstanding sends, RDMA operations and RMR binds ({@code max_request_dtos})
         * @return this builder
         */
        public Builder maxRequestDtos(int maxRequestDtos) {
            this.maxRequestDtos = maxRequestDtos;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRecvIov()}.
         *
         * @param maxRecvIov the most IOV entries of a receive ({@code max_recv_iov})
         * @return this builder
         */
        public Builder maxRecvIov(int maxRecvIov) {
            this.maxRecvIov = maxRecvIov;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRequestIov()}.
         *
         * @param maxRequestIov the most IOV entries of a send ({@code max_request_iov})
         * @return this builder
         */
        public Builder maxRequestIov(int maxRequestIov) {
            this.maxRequestIov = maxRequestIov;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRdmaReadIn()}.
         *
         * @param maxRdmaReadIn the most outstanding RDMA reads with this Endpoint as target ({@code max_rdma_read_in})
         * @return this builder
         */
        public Builder maxRdmaReadIn(int maxRdmaReadIn) {
            this.maxRdmaReadIn = maxRdmaReadIn;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRdmaReadOut()}.
         *
         * @param maxRdmaReadOut the most outstanding RDMA reads this Endpoint originates ({@code max_rdma_read_out})
         * @return this builder
         */
        public Builder maxRdmaReadOut(int maxRdmaReadOut) {
            this.maxRdmaReadOut = maxRdmaReadOut;
            return this;
        }

        /**
         * Sets {@link EpAttributes#srqSoftHighWatermark()}.
         *
         * @param srqSoftHighWatermark the soft high watermark of receives taken from the SRQ ({@code srq_soft_hw})
         * @return this builder
         */
        public Builder srqSoftHighWatermark(int srqSoftHighWatermark) {
            this.srqSoftHighWatermark = srqSoftHighWatermark;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRdmaReadIov()}.
         *
         * @param maxRdmaReadIov the most local IOV entries of an RDMA read ({@code max_rdma_read_iov})
         * @return this builder
         */
        public Builder maxRdmaReadIov(int maxRdmaReadIov) {
            this.maxRdmaReadIov = maxRdmaReadIov;
            return this;
        }

        /**
         * Sets {@link EpAttributes#maxRdmaWriteIov()}.
         *
         * @param maxRdmaWriteIov the most local IOV entries of an RDMA write ({@code max_rdma_write_iov})
         * @return this builder
         */
        public Builder maxRdmaWriteIov(int maxRdmaWriteIov) {
            this.maxRdmaWriteIov = maxRdmaWriteIov;
            return this;
        }

        /**
         * Sets {@link EpAttributes#transportSpecific()}.
         *
         * @param transportSpecific transport-specific attributes ({@code ep_transport_specific})
         * @return this builder
         */
        public Builder transportSpecific(java.util.Map<String, String> transportSpecific) {
            this.transportSpecific = transportSpecific;
            return this;
        }

        /**
         * Sets {@link EpAttributes#providerSpecific()}.
         *
         * @param providerSpecific provider-specific attributes ({@code ep_provider_specific})
         * @return this builder
         */
        public Builder providerSpecific(java.util.Map<String, String> providerSpecific) {
            this.providerSpecific = providerSpecific;
            return this;
        }

        /**
         * Builds the record.
         *
         * @return the immutable {@link EpAttributes}
         */
        public EpAttributes build() {
            return new EpAttributes(serviceType, maxMessageSize, maxRdmaSize, qos, recvCompletionFlags, requestCompletionFlags, maxRecvDtos, maxRequestDtos, maxRecvIov, maxRequestIov, maxRdmaReadIn, maxRdmaReadOut, srqSoftHighWatermark, maxRdmaReadIov, maxRdmaWriteIov, transportSpecific, providerSpecific);
        }
    }
}
