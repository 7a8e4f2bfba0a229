package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The attributes a consumer asks of a Shared Receive Queue, {@code DAT_SRQ_ATTR}: see
 * dat_srq_create(3DAT).
 *
 * @param maxRecvDtos the most receives the SRQ holds ({@code max_recv_dtos})
 * @param maxRecvIov the most IOV entries of one receive ({@code max_recv_iov})
 * @param lowWatermark the low watermark: when fewer receives remain, the SRQ raises its low-watermark event ({@code low_watermark}); 0 means none
 */
@ProviderType
public record SrqAttributes(
        int maxRecvDtos,
        int maxRecvIov,
        int lowWatermark) {

    /**
     * Starts a builder with this record's values, to derive a changed copy.
     *
     * @return a builder holding every field of this record
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
            builder.maxRecvDtos = maxRecvDtos;
            builder.maxRecvIov = maxRecvIov;
            builder.lowWatermark = lowWatermark;
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

    /** Builds a {@link SrqAttributes}; every field starts at its default. */
    public static final class Builder {
        private int maxRecvDtos = 0;
        private int maxRecvIov = 0;
        private int lowWatermark = DatConstants.SRQ_LW_DEFAULT;

        private Builder() {
        }

        /**
         * Sets {@link SrqAttributes#maxRecvDtos()}.
         *
         * @param maxRecvDtos the most receives the SRQ holds ({@code max_recv_dtos})
         * @return this builder
         */
        public Builder maxRecvDtos(int maxRecvDtos) {
            this.maxRecvDtos = maxRecvDtos;
            return this;
        }

        /**
         * Sets {@link SrqAttributes#maxRecvIov()}.
         *
         * @param maxRecvIov the most IOV entries of one receive ({@code max_recv_iov})
         * @return this builder
         */
        public Builder maxRecvIov(int maxRecvIov) {
            this.maxRecvIov = maxRecvIov;
            return this;
        }

        /**
         * Sets {@link SrqAttributes#lowWatermark()}.
         *
         * @param lowWatermark the low watermark: when fewer receives remain, the SRQ raises its low-watermark event ({@code low_watermark}); 0 means none
         * @return this builder
         */
        public Builder lowWatermark(int lowWatermark) {
            this.lowWatermark = lowWatermark;
            return this;
        }

        /**
         * Builds the record.
         *
         * @return the immutable {@link SrqAttributes}
         */
        public SrqAttributes build() {
            return new SrqAttributes(maxRecvDtos, maxRecvIov, lowWatermark);
        }
    }
}
