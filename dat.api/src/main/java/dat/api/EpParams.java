package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of an Endpoint, {@code DAT_EP_PARAM}, as dat_ep_query(3DAT) reports them and
 * dat_ep_modify(3DAT) takes them (only the fields named by the {@link EpParamMask} are read by
 * modify). Handles that are not set are {@code null} (the C {@code DAT_HANDLE_NULL}).
 * 
 * <p>{@code remoteIaAddress} and {@code remotePortQual} have values only in the connection-pending,
 * connected and disconnect-pending states; {@code localPortQual} only once the Endpoint is bound to a
 * port.
 *
 * @param ia the IA the Endpoint belongs to
 * @param state the Endpoint state
 * @param localIaAddress the local IA address
 * @param localPortQual the local port qualifier
 * @param remoteIaAddress the remote IA address, when connected or connecting
 * @param remotePortQual the remote port qualifier, when connected or connecting
 * @param pz the Protection Zone
 * @param recvEvd the EVD of receive completions, or {@code null}
 * @param requestEvd the EVD of send, RDMA and RMR-bind completions, or {@code null}
 * @param connectEvd the EVD of connection events, or {@code null}
 * @param srq the Shared Receive Queue, or {@code null}
 * @param attributes the Endpoint attributes
 */
@ProviderType
public record EpParams(
        InterfaceAdapter ia,
        EpState state,
        java.net.InetSocketAddress localIaAddress,
        long localPortQual,
        java.net.InetSocketAddress remoteIaAddress,
        long remotePortQual,
        ProtectionZone pz,
        EventDispatcher recvEvd,
        EventDispatcher requestEvd,
        EventDispatcher connectEvd,
        SharedReceiveQueue srq,
        EpAttributes attributes) {

    /**
     * Starts a builder with this record's values, to derive a changed copy.
     *
     * @return a builder holding every field of this record
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
            builder.ia = ia;
            builder.state = state;
            builder.localIaAddress = localIaAddress;
            builder.localPortQual = localPortQual;
            builder.remoteIaAddress = remoteIaAddress;
            builder.remotePortQual = remotePortQual;
            builder.pz = pz;
            builder.recvEvd = recvEvd;
            builder.requestEvd = requestEvd;
            builder.connectEvd = connectEvd;
            builder.srq = srq;
            builder.attributes = attributes;
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

    /** Builds a {@link EpParams}; every field starts at its default. */
    public static final class Builder {
        private InterfaceAdapter ia = null;
        private EpState state = EpState.UNCONNECTED;
        private java.net.InetSocketAddress localIaAddress = null;
        private long localPortQual = 0;
        private java.net.InetSocketAddress remoteIaAddress = null;
        private long remotePortQual = 0;
        private ProtectionZone pz = null;
        private EventDispatcher recvEvd = null;
        private EventDispatcher requestEvd = null;
        private EventDispatcher connectEvd = null;
        private SharedReceiveQueue srq = null;
        private EpAttributes attributes = EpAttributes.providerDefaults();

        private Builder() {
        }

        /**
         * Sets {@link EpParams#ia()}.
         *
         * @param ia the IA the Endpoint belongs to
         * @return this builder
         */
        public Builder ia(InterfaceAdapter ia) {
            this.ia = ia;
            return this;
        }

        /**
         * Sets {@link EpParams#state()}.
         *
         * @param state the Endpoint state
         * @return this builder
         */
        public Builder state(EpState state) {
            this.state = state;
            return this;
        }

        /**
         * Sets {@link EpParams#localIaAddress()}.
         *
         * @param localIaAddress the local IA address
         * @return this builder
         */
        public Builder localIaAddress(java.net.InetSocketAddress localIaAddress) {
            this.localIaAddress = localIaAddress;
            return this;
        }

        /**
         * Sets {@link EpParams#localPortQual()}.
         *
         * @param localPortQual the local port qualifier
         * @return this builder
         */
        public Builder localPortQual(long localPortQual) {
            this.localPortQual = localPortQual;
            return this;
        }

        /**
         * Sets {@link EpParams#remoteIaAddress()}.
         *
         * @param remoteIaAddress the remote IA address, when connected or connecting
         * @return this builder
         */
        public Builder remoteIaAddress(java.net.InetSocketAddress remoteIaAddress) {
            this.remoteIaAddress = remoteIaAddress;
            return this;
        }

        /**
         * Sets {@link EpParams#remotePortQual()}.
         *
         * @param remotePortQual the remote port qualifier, when connected or connecting
         * @return this builder
         */
        public Builder remotePortQual(long remotePortQual) {
            this.remotePortQual = remotePortQual;
            return this;
        }

        /**
         * Sets {@link EpParams#pz()}.
         *
         * @param pz the Protection Zone
         * @return this builder
         */
        public Builder pz(ProtectionZone pz) {
            this.pz = pz;
            return this;
        }

        /**
         * Sets {@link EpParams#recvEvd()}.
         *
         * @param recvEvd the EVD of receive completions, or {@code null}
         * @return this builder
         */
        public Builder recvEvd(EventDispatcher recvEvd) {
            this.recvEvd = recvEvd;
            return this;
        }

        /**
         * Sets {@link EpParams#requestEvd()}.
         *
         * @param requestEvd the EVD of send, RDMA and RMR-bind completions, or {@code null}
         * @return this builder
         */
        public Builder requestEvd(EventDispatcher requestEvd) {
            this.requestEvd = requestEvd;
            return this;
        }

        /**
         * Sets {@link EpParams#connectEvd()}.
         *
         * @param connectEvd the EVD of connection events, or {@code null}
         * @return this builder
         */
        public Builder connectEvd(EventDispatcher connectEvd) {
            this.connectEvd = connectEvd;
            return this;
        }

        /**
         * Sets {@link EpParams#srq()}.
         *
         * @param srq the Shared Receive Queue, or {@code null}
         * @return this builder
         */
        public Builder srq(SharedReceiveQueue srq) {
            this.srq = srq;
            return this;
        }

        /**
         * Sets {@link EpParams#attributes()}.
         *
         * @param attributes the Endpoint attributes
         * @return this builder
         */
        public Builder attributes(EpAttributes attributes) {
            this.attributes = attributes;
            return this;
        }

        /**
         * Builds the record.
         *
         * @return the immutable {@link EpParams}
         */
        public EpParams build() {
            return new EpParams(ia, state, localIaAddress, localPortQual, remoteIaAddress, remotePortQual, pz, recvEvd, requestEvd, connectEvd, srq, attributes);
        }
    }
}
